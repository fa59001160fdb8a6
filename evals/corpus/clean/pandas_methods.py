import numpy as np
import pandas as pd
from sklearn.ensemble import RandomForestClassifier
from sklearn.model_selection import cross_val_score

df = pd.read_csv("data.csv")
df = df.rename(columns={"fare": "ticket_price"})
df["age"] = df["age"].fillna(df.groupby("pclass")["age"].transform("median"))
df = df.assign(is_female=(df.sex == "female").astype(int),
               log_price=np.log1p(df.ticket_price))
df["port"] = df["embarked"].map({"S": 0, "C": 1, "Q": 2}).fillna(0)
summary = df.groupby("pclass").agg(rate=("survived", "mean"), n=("survived", "size"))
print(summary.sort_values("rate").to_string())
features = ["pclass", "age", "is_female", "log_price", "port"]
X, y = df[features], df.survived
scores = cross_val_score(RandomForestClassifier(n_estimators=100, random_state=0), X, y, cv=4)
print(f"score={scores.mean():.4f}")
