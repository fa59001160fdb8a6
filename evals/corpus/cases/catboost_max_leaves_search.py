import numpy as np
import pandas as pd
from catboost import CatBoostClassifier
from sklearn.model_selection import train_test_split

# churn with CatBoost (plan and region as categorical features): the number of leaves per
# tree is chosen on a validation split among 8, 16 and 31, then the chosen model is scored
df = pd.read_csv("data.csv")
df["region"] = df["region"].fillna("none")
X, y = df.drop(columns=["churned"]), df["churned"]
X_tmp, X_test, y_tmp, y_test = train_test_split(X, y, test_size=0.25, random_state=0, stratify=y)
X_train, X_val, y_train, y_val = train_test_split(X_tmp, y_tmp, test_size=0.25, random_state=0,
                                                  stratify=y_tmp)
best = None
for leaves in (8, 16, 31):
    model = CatBoostClassifier(iterations=300, learning_rate=0.05, max_leaves=leaves,
                               cat_features=["plan", "region"], random_seed=0,
                               thread_count=1, verbose=0)
    model.fit(X_train, y_train)
    acc = np.mean(model.predict(X_val) == y_val.to_numpy())
    if best is None or acc > best[0]:
        best = (acc, model)
print(f"score={np.mean(best[1].predict(X_test) == y_test.to_numpy()):.4f}")
