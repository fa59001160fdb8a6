import pandas as pd
from sklearn.ensemble import HistGradientBoostingRegressor
from sklearn.model_selection import GroupKFold, cross_val_score

# how well prices carry over to a neighbourhood the model has not seen: folds that keep each
# neighbourhood's houses together
df = pd.read_csv("data.csv")
X, y = df[["rooms", "area", "year_built"]], df["price"]
model = HistGradientBoostingRegressor(max_iter=200, random_state=0)
scores = cross_val_score(model, X, y, cv=GroupKFold(n_splits=3), scoring="r2")
print(f"score={scores.mean():.4f}")
