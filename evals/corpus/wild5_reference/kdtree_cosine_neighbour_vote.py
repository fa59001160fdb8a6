import numpy as np
import pandas as pd
from sklearn.metrics import accuracy_score
from sklearn.model_selection import train_test_split
from sklearn.neighbors import KDTree
from sklearn.preprocessing import normalize

# species by a vote of the 5 most similar training flowers; similarity is the cosine of the
# angle between measurement vectors (the shape of a flower, not its size), and a k-d tree
# makes the neighbour look-up fast
df = pd.read_csv("data.csv")
X, y = df.drop(columns=["species"]).to_numpy(), df["species"].to_numpy()
X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.3, random_state=0,
                                                    stratify=y)
tree = KDTree(normalize(X_train), leaf_size=10)
_, neighbours = tree.query(normalize(X_test), k=5)
pred = []
for row in neighbours:
    labels, counts = np.unique(y_train[row], return_counts=True)
    pred.append(labels[np.argmax(counts)])
print(f"score={accuracy_score(y_test, pred):.4f}")
