import pandas as pd
from sklearn.model_selection import train_test_split
from sklearn.linear_model import Ridge
from sklearn.metrics import mean_squared_error

df = pd.read_csv("data.csv")
X = df.drop(columns=["progression"])
y = df["progression"]
X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.25, random_state=0)

model = Ridge(alpha=1.0)
model.fit(X_train, y_train)
rmse = mean_squared_error(y_test, model.predict(X_test), squared=False)
baseline = mean_squared_error(y_test, [y_train.mean()] * len(y_test), squared=False)
print(f"rmse={rmse:.2f}")
print(f"score={1 - rmse / baseline:.4f}")
