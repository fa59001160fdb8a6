import pandas as pd
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import cross_val_score

# survival from class, sex, fare and port of embarkation, each coded as an integer
df = pd.read_csv("data.csv")
df["sex"] = df["sex"].map({"female": 1, "male": 0}).astype(int)
df["embarked"] = df["embarked"].map({"S": 0, "C": 1, "Q": 2}).astype(int)
X, y = df[["pclass", "sex", "fare", "embarked"]], df["survived"]
model = LogisticRegression(max_iter=1000)
print(f"score={cross_val_score(model, X, y, cv=5).mean():.4f}")
