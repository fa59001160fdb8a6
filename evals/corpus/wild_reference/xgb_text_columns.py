import pandas as pd
from sklearn.model_selection import cross_val_score
from xgboost import XGBClassifier

df = pd.read_csv("data.csv")
X, y = df.drop(columns=["survived"]), df["survived"]
X = pd.get_dummies(X, columns=["sex", "embarked"], dtype=float)
model = XGBClassifier(n_estimators=100, max_depth=3, learning_rate=0.1, n_jobs=1)
print(f"score={cross_val_score(model, X, y, cv=5, scoring='roc_auc').mean():.4f}")
