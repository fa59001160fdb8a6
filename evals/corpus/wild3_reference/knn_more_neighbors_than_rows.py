import numpy as np
import pandas as pd
from sklearn.neighbors import KNeighborsClassifier

# a reference set of 20 labelled flowers per species; every other flower is named by a
# distance-weighted vote of its 10 nearest references
df = pd.read_csv("data.csv")
reference = df.groupby("species").head(20)
rest = df.drop(index=reference.index)
features = ["sepal_length", "sepal_width", "petal_length", "petal_width"]
knn = KNeighborsClassifier(n_neighbors=10, weights="distance")
knn.fit(reference[features], reference["species"])
pred = knn.predict(rest[features])
print(f"score={np.mean(pred == rest['species'].to_numpy()):.4f}")
