import pandas as pd
from sklearn.compose import ColumnTransformer
from sklearn.impute import SimpleImputer
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import train_test_split
from sklearn.pipeline import Pipeline, make_pipeline
from sklearn.preprocessing import OneHotEncoder

df = pd.read_csv("data.csv")
X, y = df.drop(columns=["survived"]), df["survived"]
prep = ColumnTransformer([
    ("cat", make_pipeline(SimpleImputer(strategy="most_frequent"),
                          OneHotEncoder(handle_unknown="ignore", sparse=False)),
     ["sex", "embarked"]),
    ("num", SimpleImputer(strategy="median"), ["pclass", "age", "fare"]),
])
clf = Pipeline([("prep", prep), ("model", LogisticRegression(max_iter=1000))])
X_train, X_test, y_train, y_test = train_test_split(X, y, random_state=0)
clf.fit(X_train, y_train)
print(f"score={clf.score(X_test, y_test):.4f}")
