import pandas as pd
from sklearn.ensemble import GradientBoostingClassifier
from sklearn.model_selection import cross_val_score

# survival with two engineered features: how far a passenger's fare and age sit from the
# typical spread (mean absolute deviation) of fares and ages in their class
df = pd.read_csv("data.csv")
df["age"] = df["age"].fillna(df["age"].median())
df["female"] = (df["sex"] == "female").astype(int)
spread = df.groupby("pclass")[["fare", "age"]].agg(lambda s: (s - s.mean()).abs().mean())
df["fare_spread"] = df["pclass"].map(spread["fare"])
df["age_spread"] = df["pclass"].map(spread["age"])
df["fare_z"] = (df["fare"] - df.groupby("pclass")["fare"].transform("mean")) / df["fare_spread"]
df["age_z"] = (df["age"] - df.groupby("pclass")["age"].transform("mean")) / df["age_spread"]
X, y = df[["pclass", "female", "age", "fare", "fare_z", "age_z"]], df["survived"]
model = GradientBoostingClassifier(n_estimators=100, max_depth=2, random_state=0)
print(f"score={cross_val_score(model, X, y, cv=5).mean():.4f}")
