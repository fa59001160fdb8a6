import numpy as np
import pandas as pd
from sklearn.neighbors import KNeighborsClassifier

df = pd.read_csv("data.csv")
X = df.drop(columns=["species"]).to_numpy()
print("cells", np.product(X.shape))
knn = KNeighborsClassifier().fit(X[::2], df["species"][::2])
print(f"score={knn.score(X[1::2], df['species'][1::2]):.4f}")
