import pandas as pd
from sklearn.model_selection import StratifiedShuffleSplit, train_test_split
from sklearn.neighbors import KNeighborsClassifier

df = pd.read_csv("data.csv")
X, y = df.drop(columns=["species"]), df["species"]
X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.3, stratify=y,
                                                    random_state=0)
splits = StratifiedShuffleSplit(n_splits=3, test_size=0.2, random_state=0)
scores = [KNeighborsClassifier().fit(X_train.iloc[a], y_train.iloc[a])
          .score(X_train.iloc[b], y_train.iloc[b]) for a, b in splits.split(X_train, y_train)]
print("inner", sum(scores) / len(scores))
knn = KNeighborsClassifier(n_neighbors=5).fit(X_train, y_train)
print(f"score={knn.score(X_test, y_test):.4f}")
