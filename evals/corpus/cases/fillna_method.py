import pandas as pd
from sklearn.linear_model import LogisticRegression

df = pd.read_csv("data.csv")
df["age"] = df["age"].fillna(method="ffill").fillna(30)
X = pd.get_dummies(df[["pclass", "sex", "age", "fare"]], columns=["sex"])
y = df["survived"]
model = LogisticRegression(max_iter=1000)
model.fit(X[:300], y[:300])
print(f"score={model.score(X[300:], y[300:]):.4f}")
