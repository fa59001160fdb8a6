import pandas as pd
from sklearn.linear_model import LinearRegression

df = pd.read_csv("data.csv")
X = df[["rooms", "area", "year_built"]]
reg = LinearRegression()
reg.fit(X[:220], df["price"][:220])
print(f"score={reg.score(X[220:], df['price'][220:]):.4f}")
