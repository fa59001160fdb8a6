import numpy as np
import pandas as pd
import xgboost as xgb
from sklearn.model_selection import train_test_split

# a small random search over tree depth and learning rate for malignant vs benign, tuned on a
# validation split, then the best settings refitted on all training rows
df = pd.read_csv("data.csv")
X, y = df.drop(columns=["malignant"]), df["malignant"]
X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.25, random_state=0, stratify=y)
X_fit, X_val, y_fit, y_val = train_test_split(X_train, y_train, test_size=0.25, random_state=0,
                                              stratify=y_train)
dfit, dval = xgb.DMatrix(X_fit, label=y_fit), xgb.DMatrix(X_val, label=y_val)
rng = np.random.default_rng(0)
best_acc, best_params = -1.0, None
for _ in range(6):
    params = {"objective": "binary:logistic", "nthread": 1, "seed": 0,
              "max_depth": int(np.round(rng.uniform(2, 8))),  # between 2 and 8 levels
              "eta": np.round(rng.uniform(0.05, 0.3), 2)}
    booster = xgb.train(params, dfit, num_boost_round=100)
    acc = np.mean((booster.predict(dval) > 0.5) == y_val.to_numpy())
    if acc > best_acc:
        best_acc, best_params = acc, params
final = xgb.train(best_params, xgb.DMatrix(X_train, label=y_train), num_boost_round=100)
score = np.mean((final.predict(xgb.DMatrix(X_test)) > 0.5) == y_test.to_numpy())
print(f"score={score:.4f}")
