import lightgbm as lgb
import numpy as np
import pandas as pd
from sklearn.model_selection import train_test_split

# cultivars with LGBMClassifier: boosting on the training rows stops once the validation
# AUC has not improved for 30 rounds
df = pd.read_csv("data.csv")
X, y = df.drop(columns=["cultivar"]), df["cultivar"]
X_tmp, X_test, y_tmp, y_test = train_test_split(X, y, test_size=0.25, random_state=0, stratify=y)
X_train, X_val, y_train, y_val = train_test_split(X_tmp, y_tmp, test_size=0.25, random_state=0,
                                                  stratify=y_tmp)
model = lgb.LGBMClassifier(n_estimators=500, learning_rate=0.05, num_leaves=8,
                           min_child_samples=10, n_jobs=1, random_state=0, verbose=-1)
model.fit(X_train, y_train, eval_set=[(X_val, y_val)], eval_metric="multi_logloss",
          callbacks=[lgb.early_stopping(30, verbose=False)])
print(f"score={np.mean(model.predict(X_test) == y_test.to_numpy()):.4f}")
