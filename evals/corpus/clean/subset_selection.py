import pandas as pd
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import cross_val_score

df = pd.read_csv("data.csv")
print(df["sex"].value_counts().to_dict(), "missing ages:", int(df["age"].isna().sum()))
X = df[["pclass", "fare"]]
y = df["survived"]
print(f"score={cross_val_score(LogisticRegression(), X, y, cv=5).mean():.4f}")
