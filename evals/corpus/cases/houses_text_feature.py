import pandas as pd
from sklearn.ensemble import RandomForestRegressor

df = pd.read_csv("data.csv").dropna()
X, y = df.drop(columns=["price"]), df["price"]
forest = RandomForestRegressor(n_estimators=100, random_state=0)
forest.fit(X[:200], y[:200])
print(f"score={forest.score(X[200:], y[200:]):.4f}")
