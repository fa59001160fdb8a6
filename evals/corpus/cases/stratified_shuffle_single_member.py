import pandas as pd
from sklearn.model_selection import StratifiedShuffleSplit
from sklearn.neighbors import KNeighborsClassifier

df = pd.read_csv("data.csv")
X, y = df.drop(columns=["species"]), df["species"]
sss = StratifiedShuffleSplit(n_splits=1, test_size=0.3, random_state=42)
train_idx, test_idx = next(sss.split(X, y))
knn = KNeighborsClassifier().fit(X.iloc[train_idx], y.iloc[train_idx])
print(f"score={knn.score(X.iloc[test_idx], y.iloc[test_idx]):.4f}")
