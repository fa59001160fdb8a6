import numpy as np
import pandas as pd
from sklearn.tree import DecisionTreeClassifier

df = pd.read_csv("data.csv")
thresholds = np.msort(df["mean_radius"].unique())
print("radius thresholds from", thresholds[0], "to", thresholds[-1])
X, y = df.drop(columns=["malignant"]), df["malignant"]
tree = DecisionTreeClassifier(max_depth=4, random_state=0).fit(X[:400], y[:400])
print(f"score={tree.score(X[400:], y[400:]):.4f}")
