import pandas as pd
from sklearn.ensemble import RandomForestRegressor
from sklearn.model_selection import train_test_split

df = pd.read_csv("data.csv")
df["year_built"] = df["year_built"].fillna(df["year_built"].median())
X = pd.get_dummies(df.drop(columns=["price"]), columns=["neighborhood"], dtype=float)
y = df["price"]
X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.25, random_state=0)
forest = RandomForestRegressor(n_estimators=100, random_state=0).fit(X_train, y_train)
print(f"score={forest.score(X_test, y_test):.4f}")
