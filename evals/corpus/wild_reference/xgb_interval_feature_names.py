import pandas as pd
from sklearn.model_selection import cross_val_score
from xgboost import XGBClassifier

# band the ages, one-hot everything, boost
df = pd.read_csv("data.csv")
df["age_band"] = pd.cut(df["age"], bins=[0, 12, 18, 35, 60, 100],
                        labels=["child", "teen", "young", "adult", "senior"])
X = pd.get_dummies(df.drop(columns=["survived", "age"]), columns=["sex", "embarked", "age_band"],
                   dtype=float)
model = XGBClassifier(n_estimators=100, max_depth=3, n_jobs=1)
print(f"score={cross_val_score(model, X, df['survived'], cv=5, scoring='roc_auc').mean():.4f}")
