import pandas as pd
from lightgbm import LGBMClassifier
from sklearn.model_selection import train_test_split

df = pd.read_csv("data.csv")
X, y = df.drop(columns=["malignant"]), df["malignant"]
X_train, X_test, y_train, y_test = train_test_split(X, y, stratify=y, random_state=0)
X_fit, X_val, y_fit, y_val = train_test_split(X_train, y_train, stratify=y_train, random_state=0)
model = LGBMClassifier(n_estimators=500, learning_rate=0.05, num_leaves=8, verbose=-1, n_jobs=1)
model.fit(X_fit, y_fit, eval_set=[(X_val, y_val)], early_stopping_rounds=30, verbose=False)
print(f"score={model.score(X_test, y_test):.4f}")
