import pandas as pd
from catboost import CatBoostRegressor
from sklearn.metrics import r2_score
from sklearn.model_selection import train_test_split

# house prices with CatBoost (the neighbourhood as a categorical feature), with the feature
# importances reported after training
df = pd.read_csv("data.csv")
X, y = df.drop(columns=["price"]), df["price"]
X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.25, random_state=0)
model = CatBoostRegressor(iterations=400, depth=4, learning_rate=0.05, random_seed=0,
                          thread_count=1, verbose=0)
model.fit(X_train, y_train, cat_features=["neighborhood"])
for name, value in sorted(zip(X.columns, model.feature_importances_), key=lambda p: -p[1]):
    print(f"{name:>14} {value:6.2f}")
print(f"score={r2_score(y_test, model.predict(X_test)):.4f}")
