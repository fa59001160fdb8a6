import pandas as pd
from catboost import CatBoostClassifier
from sklearn.model_selection import train_test_split

# tree settings shared with the other boosters, on top of the CatBoost defaults used here
shared = {"max_depth": 4, "learning_rate": 0.1}
defaults = {"iterations": 200, "depth": 6, "random_seed": 0, "thread_count": 1, "verbose": 0,
            "allow_writing_files": False}
df = pd.read_csv("data.csv")
df["region"] = df["region"].fillna("unknown")
X, y = df.drop(columns=["churned"]), df["churned"]
X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.25, random_state=0)
model = CatBoostClassifier(**defaults, **shared)
model.fit(X_train, y_train, cat_features=["plan", "region"])
print(f"score={model.score(X_test, y_test):.4f}")
