import pandas as pd
import xgboost as xgb
from sklearn.metrics import accuracy_score
from sklearn.model_selection import train_test_split

# train on the named frame; the scoring service sends plain arrays
df = pd.read_csv("data.csv")
X, y = df.drop(columns=["malignant"]), df["malignant"]
X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.25, random_state=0)
params = {"objective": "binary:logistic", "max_depth": 3, "eta": 0.1, "nthread": 1}
bst = xgb.train(params, xgb.DMatrix(X_train, label=y_train), num_boost_round=100)
incoming = X_test.to_numpy()
proba = bst.predict(xgb.DMatrix(incoming, feature_names=list(X.columns)))
print(f"score={accuracy_score(y_test, proba > 0.5):.4f}")
