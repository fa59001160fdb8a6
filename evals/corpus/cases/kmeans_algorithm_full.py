import pandas as pd
from sklearn.cluster import KMeans
from sklearn.metrics import adjusted_rand_score

df = pd.read_csv("data.csv")
X = df.drop(columns=["species"])
km = KMeans(n_clusters=3, algorithm="full", n_init=10, random_state=0)
labels = km.fit_predict(X)
print(f"score={adjusted_rand_score(df['species'], labels):.4f}")
