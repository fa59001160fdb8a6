import numpy as np
import pandas as pd
from scipy import stats
from sklearn.metrics import accuracy_score
from sklearn.model_selection import train_test_split
from sklearn.tree import DecisionTreeClassifier

# a hand-made bagging ensemble: 25 trees, each on a bootstrap sample of the training wines;
# each held-out wine gets the cultivar most of the trees vote for
df = pd.read_csv("data.csv")
X, y = df.drop(columns=["cultivar"]).to_numpy(), df["cultivar"].to_numpy()
X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.3, random_state=0,
                                                    stratify=y)
rng = np.random.default_rng(0)
trees = []
for _ in range(25):
    rows = rng.integers(0, len(X_train), len(X_train))
    trees.append(DecisionTreeClassifier(max_features="sqrt", random_state=0)
                 .fit(X_train[rows], y_train[rows]))
votes = np.array([tree.predict(X_test) for tree in trees])  # one row of votes per tree
pred = np.array([stats.mode(votes[:, i])[0] for i in range(len(X_test))])
print(f"score={accuracy_score(y_test, pred):.4f}")
