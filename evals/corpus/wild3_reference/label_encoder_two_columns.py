import pandas as pd
from sklearn.ensemble import RandomForestClassifier
from sklearn.model_selection import cross_val_score
from sklearn.preprocessing import LabelEncoder

# survival with a forest: sex and port turned into integer codes, missing ages filled with
# the median
df = pd.read_csv("data.csv")
df["age"] = df["age"].fillna(df["age"].median())
cats = ["sex", "embarked"]
df[cats] = df[cats].apply(LabelEncoder().fit_transform)
X, y = df[["pclass", "sex", "age", "fare", "embarked"]], df["survived"]
forest = RandomForestClassifier(n_estimators=200, max_depth=5, random_state=0, n_jobs=1)
print(f"score={cross_val_score(forest, X, y, cv=5).mean():.4f}")
