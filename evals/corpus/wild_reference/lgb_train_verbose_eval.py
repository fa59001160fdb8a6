import lightgbm as lgb
import pandas as pd
from sklearn.metrics import r2_score
from sklearn.model_selection import train_test_split

df = pd.read_csv("data.csv")
X, y = df.drop(columns=["progression"]), df["progression"]
X_train, X_test, y_train, y_test = train_test_split(X, y, random_state=0)
X_fit, X_val, y_fit, y_val = train_test_split(X_train, y_train, random_state=0)
params = {"objective": "regression", "learning_rate": 0.03, "num_leaves": 4,
          "min_data_in_leaf": 20, "verbose": -1, "num_threads": 1}
dtrain = lgb.Dataset(X_fit, y_fit)
dval = lgb.Dataset(X_val, y_val, reference=dtrain)
booster = lgb.train(params, dtrain, num_boost_round=1000, valid_sets=[dval],
                    callbacks=[lgb.early_stopping(50, verbose=False)])
print(f"score={r2_score(y_test, booster.predict(X_test)):.4f}")
