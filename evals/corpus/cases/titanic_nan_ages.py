import pandas as pd
from sklearn.linear_model import LogisticRegression

df = pd.read_csv("data.csv")
X = df[["pclass", "age", "fare"]]
y = df["survived"]
clf = LogisticRegression(max_iter=1000)
clf.fit(X[:300], y[:300])
print(f"score={clf.score(X[300:], y[300:]):.4f}")
