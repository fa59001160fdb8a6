import numpy as np
import pandas as pd
from sklearn.ensemble import HistGradientBoostingRegressor

df = pd.read_csv("data.csv")
df["year_built"] = df["year_built"].fillna(-1).replace(-1, np.NaN)
X = pd.get_dummies(df.drop(columns=["price"]), columns=["neighborhood"])
model = HistGradientBoostingRegressor(max_iter=100, random_state=0)
model.fit(X[:220], df["price"][:220])
print(f"score={model.score(X[220:], df['price'][220:]):.4f}")
