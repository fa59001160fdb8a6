import pandas as pd
from catboost import CatBoostClassifier
from sklearn.metrics import roc_auc_score
from sklearn.model_selection import train_test_split

df = pd.read_csv("data.csv")
X, y = df.drop(columns=["churned"]), df["churned"]
X_train, X_test, y_train, y_test = train_test_split(X, y, stratify=y, random_state=0)
model = CatBoostClassifier(iterations=200, depth=4, verbose=0, random_seed=0, thread_count=1)
model.fit(X_train, y_train, cat_features=["plan", "region"])
print(f"score={roc_auc_score(y_test, model.predict_proba(X_test)[:, 1]):.4f}")
