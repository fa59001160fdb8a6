import numpy as np
import pandas as pd
from sklearn.neighbors import KNeighborsClassifier

# species by nearest neighbours: the rows shuffled once, the first 90% to train on and the
# last 10% to test on
df = pd.read_csv("data.csv")
X_all, y_all = df.drop(columns=["species"]).to_numpy(), df["species"].to_numpy()
order = np.random.default_rng(0).permutation(len(X_all))
X_rows, y_rows = X_all[order], y_all[order]
n_samples = len(X_rows)
X_train = X_rows[:.9 * n_samples]
y_train = y_rows[:.9 * n_samples]
X_test = X_rows[.9 * n_samples:]
y_test = y_rows[.9 * n_samples:]
knn = KNeighborsClassifier(n_neighbors=5).fit(X_train, y_train)
print(f"score={knn.score(X_test, y_test):.4f}")
