import pandas as pd
from sklearn.ensemble import RandomForestClassifier

df = pd.read_csv("data.csv")
X = df.ix[:, "alcohol":"proline"]
y = df["cultivar"]
forest = RandomForestClassifier(n_estimators=50, random_state=0)
forest.fit(X[::2], y[::2])
print(f"score={forest.score(X[1::2], y[1::2]):.4f}")
