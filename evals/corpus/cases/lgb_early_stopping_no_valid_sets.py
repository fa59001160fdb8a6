import lightgbm as lgb
import pandas as pd
from sklearn.metrics import r2_score
from sklearn.model_selection import train_test_split

# disease progression with lightgbm.train: a training, a validation and a test split; boosting
# stops once the validation error has not improved for 20 rounds
df = pd.read_csv("data.csv")
X, y = df.drop(columns=["progression"]), df["progression"]
X_tmp, X_test, y_tmp, y_test = train_test_split(X, y, test_size=0.25, random_state=0)
X_train, X_val, y_train, y_val = train_test_split(X_tmp, y_tmp, test_size=0.25, random_state=0)
dtrain = lgb.Dataset(X_train, label=y_train)
dval = lgb.Dataset(X_val, label=y_val, reference=dtrain)
params = {"objective": "regression", "learning_rate": 0.03, "num_leaves": 8,
          "min_data_in_leaf": 20, "feature_fraction": 0.8, "num_threads": 1, "seed": 0,
          "deterministic": True, "verbose": -1}
booster = lgb.train(params, dtrain, num_boost_round=2000,
                    callbacks=[lgb.early_stopping(20, verbose=False)])
pred = booster.predict(X_test, num_iteration=booster.best_iteration)
print(f"score={r2_score(y_test, pred):.4f}")
