import pandas as pd
from lightgbm import LGBMClassifier
from sklearn.model_selection import cross_val_score

df = pd.read_csv("data.csv")
X, y = df.drop(columns=["churned"]), df["churned"]
model = LGBMClassifier(n_estimators=100, learning_rate=0.05, num_leaves=8, verbose=-1, n_jobs=1)
print(f"score={cross_val_score(model, X, y, cv=5, scoring='roc_auc').mean():.4f}")
