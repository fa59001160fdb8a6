import numpy as np
import pandas as pd
from sklearn.cluster import KMeans
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import train_test_split
from sklearn.preprocessing import StandardScaler

# cultivar from the chemistry plus the distances to 8 centroids learnt on the training wines
# (k-means run on all cores)
df = pd.read_csv("data.csv")
X, y = df.drop(columns=["cultivar"]), df["cultivar"]
X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.3, stratify=y,
                                                    random_state=0)
scaler = StandardScaler().fit(X_train)
Z_train, Z_test = scaler.transform(X_train), scaler.transform(X_test)
kmeans = KMeans(n_clusters=8, init="k-means++", n_init=1, max_iter=300, n_jobs=-1,
                random_state=0)
kmeans.fit(Z_train)
F_train = np.hstack([Z_train, kmeans.transform(Z_train)])
F_test = np.hstack([Z_test, kmeans.transform(Z_test)])
model = LogisticRegression(max_iter=1000).fit(F_train, y_train)
print(f"score={model.score(F_test, y_test):.4f}")
