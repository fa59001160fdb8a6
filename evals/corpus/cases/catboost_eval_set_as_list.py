import numpy as np
import pandas as pd
from catboost import CatBoostClassifier
from sklearn.model_selection import train_test_split

# churn with CatBoost on the raw plan and region columns; a validation split picks the best
# iteration
df = pd.read_csv("data.csv")
df["region"] = df["region"].fillna("unknown")
cat_cols = ["plan", "region"]
X, y = df.drop(columns=["churned"]), df["churned"]
X_tmp, X_test, y_tmp, y_test = train_test_split(X, y, test_size=0.25, random_state=0, stratify=y)
X_train, X_val, y_train, y_val = train_test_split(X_tmp, y_tmp, test_size=0.2, random_state=0,
                                                  stratify=y_tmp)
model = CatBoostClassifier(iterations=400, depth=4, learning_rate=0.05, random_seed=0,
                           thread_count=1, verbose=0)
model.fit(X_train, y_train, cat_features=cat_cols, use_best_model=True, eval_set=[X_val, y_val])
print(f"score={np.mean(model.predict(X_test) == y_test.to_numpy()):.4f}")
