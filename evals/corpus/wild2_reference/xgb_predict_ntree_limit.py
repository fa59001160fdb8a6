import pandas as pd
import xgboost as xgb
from sklearn.metrics import accuracy_score
from sklearn.model_selection import train_test_split

# early stopping on a validation split, then predict with the best number of trees
df = pd.read_csv("data.csv")
X, y = df.drop(columns=["malignant"]), df["malignant"]
X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.25, random_state=0)
X_fit, X_val, y_fit, y_val = train_test_split(X_train, y_train, test_size=0.2, random_state=0)
dfit, dval = xgb.DMatrix(X_fit, label=y_fit), xgb.DMatrix(X_val, label=y_val)
params = {"objective": "binary:logistic", "max_depth": 3, "eta": 0.1, "nthread": 1}
bst = xgb.train(params, dfit, num_boost_round=300, evals=[(dval, "val")],
                early_stopping_rounds=20, verbose_eval=False)
proba = bst.predict(xgb.DMatrix(X_test), iteration_range=(0, bst.best_iteration + 1))
print(f"score={accuracy_score(y_test, proba > 0.5):.4f}")
