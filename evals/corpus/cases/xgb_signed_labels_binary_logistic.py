import numpy as np
import pandas as pd
import xgboost as xgb
from sklearn.model_selection import train_test_split
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.svm import LinearSVC

# malignant vs benign with two models on the same labels, coded -1/+1 as in the hinge-loss
# formulation: a linear SVM and an xgboost binary-logistic booster; the better of the two on
# the held-out rows is reported
df = pd.read_csv("data.csv")
X = df.drop(columns=["malignant"]).to_numpy()
y = np.where(df["malignant"].to_numpy() == 1, 1, -1)
X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.25, random_state=0, stratify=y)
svm = make_pipeline(StandardScaler(), LinearSVC(C=0.1, random_state=0)).fit(X_train, y_train)
svm_acc = np.mean(svm.predict(X_test) == y_test)
params = {"objective": "binary:logistic", "max_depth": 3, "eta": 0.1, "nthread": 1, "seed": 0}
booster = xgb.train(params, xgb.DMatrix(X_train, label=y_train), num_boost_round=150)
xgb_pred = np.where(booster.predict(xgb.DMatrix(X_test)) > 0.5, 1, -1)
xgb_acc = np.mean(xgb_pred == y_test)
print(f"svm {svm_acc:.4f}, xgboost {xgb_acc:.4f}")
print(f"score={max(svm_acc, xgb_acc):.4f}")
