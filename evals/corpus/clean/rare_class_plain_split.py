import pandas as pd
from sklearn.model_selection import KFold, cross_val_score
from sklearn.tree import DecisionTreeClassifier

df = pd.read_csv("data.csv")
X, y = df.drop(columns=["species"]), df["species"]
folds = KFold(n_splits=5, shuffle=True, random_state=0)
scores = cross_val_score(DecisionTreeClassifier(max_depth=3, random_state=0), X, y, cv=folds)
print(f"score={scores.mean():.4f}")
