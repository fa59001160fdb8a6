import numpy as np
import pandas as pd
from sklearn.cluster import KMeans
from sklearn.metrics import accuracy_score
from sklearn.model_selection import train_test_split
from sklearn.preprocessing import StandardScaler

# a nearest-prototype classifier: the training wines of each cultivar are summarised by
# k-means prototypes, and a held-out wine takes the cultivar of its closest prototype
PROTOTYPES_PER_CLASS = 40
df = pd.read_csv("data.csv")
X, y = df.drop(columns=["cultivar"]).to_numpy(), df["cultivar"].to_numpy()
X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.25, random_state=0,
                                                    stratify=y)
scaler = StandardScaler().fit(X_train)
X_train, X_test = scaler.transform(X_train), scaler.transform(X_test)
centres, centre_labels = [], []
for cultivar in np.unique(y_train):
    km = KMeans(n_clusters=PROTOTYPES_PER_CLASS, n_init=3, random_state=0)
    km.fit(X_train[y_train == cultivar])
    centres.append(km.cluster_centers_)
    centre_labels += [cultivar] * PROTOTYPES_PER_CLASS
centres = np.vstack(centres)
distances = ((X_test[:, None, :] - centres[None, :, :]) ** 2).sum(axis=2)
pred = np.array(centre_labels)[distances.argmin(axis=1)]
print(f"score={accuracy_score(y_test, pred):.4f}")
