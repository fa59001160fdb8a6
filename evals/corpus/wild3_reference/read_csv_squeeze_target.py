import pandas as pd
from sklearn.ensemble import RandomForestRegressor
from sklearn.model_selection import cross_val_score

# house prices from rooms and area: the features and the price column read separately
X = pd.read_csv("data.csv", usecols=["rooms", "area"])
y = pd.read_csv("data.csv", usecols=["price"]).squeeze("columns")
forest = RandomForestRegressor(n_estimators=200, random_state=0, n_jobs=1)
print(f"score={cross_val_score(forest, X, y, cv=5, scoring='r2').mean():.4f}")
