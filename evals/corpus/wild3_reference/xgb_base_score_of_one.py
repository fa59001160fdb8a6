import numpy as np
import pandas as pd
import xgboost as xgb
from sklearn.model_selection import train_test_split

# a small manual search over xgboost's starting prediction (base_score) for malignant vs
# benign, keeping the best held-out accuracy
df = pd.read_csv("data.csv")
X, y = df.drop(columns=["malignant"]), df["malignant"]
X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.25, random_state=0, stratify=y)
dtrain, dtest = xgb.DMatrix(X_train, label=y_train), xgb.DMatrix(X_test)
best = 0.0
for base_score in [0.99, 0.5, 0.01]:
    params = {"objective": "binary:logistic", "base_score": base_score, "max_depth": 3,
              "eta": 0.1, "nthread": 1}
    booster = xgb.train(params, dtrain, num_boost_round=100)
    best = max(best, np.mean((booster.predict(dtest) > 0.5) == y_test.to_numpy()))
print(f"score={best:.4f}")
