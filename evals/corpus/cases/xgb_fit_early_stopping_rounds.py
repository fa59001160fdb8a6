import pandas as pd
from sklearn.model_selection import train_test_split
from xgboost import XGBClassifier

df = pd.read_csv("data.csv")
X, y = df.drop(columns=["malignant"]), df["malignant"]
X_train, X_test, y_train, y_test = train_test_split(X, y, stratify=y, random_state=0)
X_fit, X_val, y_fit, y_val = train_test_split(X_train, y_train, stratify=y_train, random_state=0)
model = XGBClassifier(n_estimators=500, learning_rate=0.1, max_depth=3, n_jobs=1)
model.fit(X_fit, y_fit, eval_set=[(X_val, y_val)], early_stopping_rounds=20, verbose=False)
print(f"score={model.score(X_test, y_test):.4f}")
