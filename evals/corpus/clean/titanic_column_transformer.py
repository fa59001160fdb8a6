import pandas as pd
from sklearn.compose import ColumnTransformer
from sklearn.impute import SimpleImputer
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import cross_val_score
from sklearn.pipeline import Pipeline
from sklearn.preprocessing import OneHotEncoder, StandardScaler

df = pd.read_csv("data.csv")
X, y = df.drop(columns=["survived"]), df["survived"]
numeric = ["pclass", "age", "fare"]
text = ["sex", "embarked"]
prep = ColumnTransformer([
    ("num", Pipeline([("impute", SimpleImputer(strategy="median")),
                      ("scale", StandardScaler())]), numeric),
    ("cat", OneHotEncoder(handle_unknown="ignore"), text),
])
model = Pipeline([("prep", prep), ("clf", LogisticRegression(max_iter=1000))])
print(f"score={cross_val_score(model, X, y, cv=5).mean():.4f}")
