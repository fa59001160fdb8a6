import pandas as pd
from sklearn.model_selection import cross_val_score
from xgboost import XGBRegressor

df = pd.read_csv("data.csv")
X, y = df.drop(columns=["progression"]), df["progression"]
model = XGBRegressor(n_estimators=200, learning_rate=0.05, max_depth=2, tree_method="hist",
                     n_jobs=1)
print(f"score={cross_val_score(model, X, y, cv=5).mean():.4f}")
