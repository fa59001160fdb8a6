import pandas as pd
from sklearn.neighbors import KNeighborsClassifier

df = pd.read_csv("data.csv")
first, second = df.iloc[:75], df.iloc[75:]
train = pd.concat([first.iloc[::2], second.iloc[::2]])
test = pd.concat([first.iloc[1::2], second.iloc[1::2]]).sort_index()
knn = KNeighborsClassifier(n_neighbors=3).fit(train.drop(columns=["species"]),
                                              train["species"])
print(f"score={knn.score(test.drop(columns=['species']), test['species']):.4f}")
