import pandas as pd
from sklearn.linear_model import LinearRegression

df = pd.read_csv("data.csv")
df = df.dropna(subset=["year_built"]).query("rooms > 0")
print(df.price.describe().round(1).to_dict())
df["age"] = 2025 - df.year_built
df = df.pipe(pd.get_dummies, columns=["neighborhood"], dtype=float)
X = df.loc[:, df.columns != "price"]
split = int(len(df) * 0.7)
model = LinearRegression().fit(X.iloc[:split], df.price.iloc[:split])
print(f"score={model.score(X.iloc[split:], df.price.iloc[split:]):.4f}")
