import pandas as pd
from catboost import CatBoostRegressor
from sklearn.model_selection import train_test_split

# the decade a house was built in, as a category
df = pd.read_csv("data.csv")
df["decade"] = df["year_built"] // 10 * 10
X, y = df.drop(columns=["price", "year_built"]), df["price"]
X_train, X_test, y_train, y_test = train_test_split(X, y, random_state=0)
model = CatBoostRegressor(iterations=300, depth=4, verbose=0, random_seed=0, thread_count=1)
model.fit(X_train, y_train, cat_features=["neighborhood", "decade"])
print(f"score={model.score(X_test, y_test):.4f}")
