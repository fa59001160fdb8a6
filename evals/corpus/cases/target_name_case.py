import pandas as pd
from sklearn.ensemble import GradientBoostingRegressor

df = pd.read_csv("data.csv").dropna()
y = df["Price"]
X = pd.get_dummies(df.drop(columns=["price"]), columns=["neighborhood"])
model = GradientBoostingRegressor(random_state=0).fit(X[:200], y[:200])
print(f"score={model.score(X[200:], y[200:]):.4f}")
