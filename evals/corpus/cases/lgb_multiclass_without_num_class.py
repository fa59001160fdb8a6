import lightgbm as lgb
import numpy as np
import pandas as pd
from sklearn.model_selection import train_test_split

# three cultivars with the native LightGBM API
df = pd.read_csv("data.csv")
X, y = df.drop(columns=["cultivar"]), df["cultivar"]
X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.3, random_state=0, stratify=y)
params = {"objective": "multiclass", "learning_rate": 0.1, "num_leaves": 15,
          "min_data_in_leaf": 5, "num_threads": 1, "verbose": -1, "seed": 0}
booster = lgb.train(params, lgb.Dataset(X_train, label=y_train), num_boost_round=100)
pred = booster.predict(X_test).argmax(axis=1)
print(f"score={np.mean(pred == y_test.to_numpy()):.4f}")
