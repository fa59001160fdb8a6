import pandas as pd
from sklearn.neighbors import KNeighborsClassifier

df = pd.read_csv("data.csv")
first, second = df.iloc[:75], df.iloc[75:]
train = first.iloc[::2].append(second.iloc[::2])
test = first.iloc[1::2].append(second.iloc[1::2])
knn = KNeighborsClassifier(n_neighbors=3)
knn.fit(train.drop(columns=["species"]), train["species"])
print(f"score={knn.score(test.drop(columns=['species']), test['species']):.4f}")
