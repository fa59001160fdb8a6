import pandas as pd
from sklearn.tree import DecisionTreeClassifier

df = pd.read_csv("data.csv")
X, y = df.drop(columns=["species"]), df["species"]
tree = DecisionTreeClassifier(max_depth=3, random_state=0).fit(X[::2], y[::2])
out = pd.DataFrame({"predicted": tree.predict(X[1::2]), "actual": y[1::2].values})
out.to_csv("predictions.csv", index=False, line_terminator="\n")
print(f"score={(out.predicted == out.actual).mean():.4f}")
