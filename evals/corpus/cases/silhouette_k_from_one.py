import numpy as np
import pandas as pd
from sklearn.cluster import KMeans
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import silhouette_score
from sklearn.model_selection import train_test_split
from sklearn.preprocessing import StandardScaler

# choose the number of flower clusters by silhouette, then add the distances to the cluster
# centres as features of a species classifier
df = pd.read_csv("data.csv")
X, y = df.drop(columns=["species"]), df["species"]
X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.3, stratify=y,
                                                    random_state=0)
scaler = StandardScaler().fit(X_train)
Z_train, Z_test = scaler.transform(X_train), scaler.transform(X_test)
silhouettes = {}
for k in range(1, 7):
    labels = KMeans(n_clusters=k, n_init=10, random_state=0).fit_predict(Z_train)
    silhouettes[k] = silhouette_score(Z_train, labels)
best_k = max(silhouettes, key=silhouettes.get)
kmeans = KMeans(n_clusters=best_k, n_init=10, random_state=0).fit(Z_train)
F_train = np.hstack([Z_train, kmeans.transform(Z_train)])
F_test = np.hstack([Z_test, kmeans.transform(Z_test)])
model = LogisticRegression(max_iter=1000).fit(F_train, y_train)
print(f"best k={best_k}")
print(f"score={model.score(F_test, y_test):.4f}")
