import pandas as pd
from sklearn.model_selection import train_test_split
from sklearn.svm import SVC

df = pd.read_csv("data.csv")
counts = df["species"].value_counts()
df = df[df["species"].isin(counts[counts >= 2].index)]
X, y = df.drop(columns=["species"]), df["species"]
X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.3, stratify=y,
                                                    random_state=0)
print(f"score={SVC().fit(X_train, y_train).score(X_test, y_test):.4f}")
