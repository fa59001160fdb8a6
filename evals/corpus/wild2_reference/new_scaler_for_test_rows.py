import pandas as pd
from sklearn.linear_model import Ridge
from sklearn.model_selection import train_test_split
from sklearn.preprocessing import StandardScaler

# standardised sensor readings into a ridge regression of the plant output
df = pd.read_csv("data.csv")
X, y = df.drop(columns=["output"]), df["output"]
X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.25, random_state=0)
scaler = StandardScaler()
X_train = scaler.fit_transform(X_train)
X_test = scaler.transform(X_test)
model = Ridge(alpha=1.0).fit(X_train, y_train)
print(f"score={model.score(X_test, y_test):.4f}")
