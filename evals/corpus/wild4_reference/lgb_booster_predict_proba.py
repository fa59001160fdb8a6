import lightgbm as lgb
import numpy as np
import pandas as pd
from sklearn.model_selection import train_test_split

# survival with LightGBM's training API: a binary objective, then the survival probability of
# each held-out passenger, thresholded at 0.5
df = pd.read_csv("data.csv")
df["female"] = (df["sex"] == "female").astype(int)
X, y = df[["pclass", "female", "age", "fare"]], df["survived"]
X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.25, random_state=0, stratify=y)
params = {"objective": "binary", "learning_rate": 0.05, "num_leaves": 8, "min_data_in_leaf": 10,
          "num_threads": 1, "seed": 0, "deterministic": True, "verbose": -1}
booster = lgb.train(params, lgb.Dataset(X_train, label=y_train), num_boost_round=100)
proba = booster.predict(X_test)
print(f"score={np.mean((proba > 0.5) == y_test.to_numpy()):.4f}")
