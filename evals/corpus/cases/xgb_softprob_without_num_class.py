import numpy as np
import pandas as pd
import xgboost as xgb
from sklearn.model_selection import train_test_split

# three cultivars with the native API: class probabilities, argmax, accuracy
df = pd.read_csv("data.csv")
X, y = df.drop(columns=["cultivar"]), df["cultivar"]
X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.3, random_state=0, stratify=y)
params = {"objective": "multi:softprob", "max_depth": 3, "eta": 0.1, "nthread": 1}
bst = xgb.train(params, xgb.DMatrix(X_train, label=y_train), num_boost_round=100)
pred = bst.predict(xgb.DMatrix(X_test)).argmax(axis=1)
print(f"score={np.mean(pred == y_test.to_numpy()):.4f}")
