import pandas as pd
from sklearn.model_selection import train_test_split
from sklearn.ensemble import RandomForestRegressor

df = pd.read_csv("data.csv")
X = df.drop(columns=["progression"])
y = df["progression"]
X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.25, random_state=0)

model = RandomForestRegressor(n_estimators=100, max_features="auto", min_samples_leaf=3,
                              random_state=0)
model.fit(X_train, y_train)
print(f"score={model.score(X_test, y_test):.4f}")
