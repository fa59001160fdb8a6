import numpy as np
import pandas as pd
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import train_test_split
from sklearn.preprocessing import StandardScaler

# the table as one numeric matrix, the cultivar in its last column; each cultivar weighted by
# the inverse of its frequency
data = pd.read_csv("data.csv").to_numpy()
X, y = data[:, :-1], data[:, -1].astype(int)
counts = np.bincount(y)
weights = {c: len(y) / (len(counts) * n) for c, n in enumerate(counts)}
X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.3, random_state=0, stratify=y)
scaler = StandardScaler().fit(X_train)
model = LogisticRegression(class_weight=weights, max_iter=1000)
model.fit(scaler.transform(X_train), y_train)
print(f"score={model.score(scaler.transform(X_test), y_test):.4f}")
