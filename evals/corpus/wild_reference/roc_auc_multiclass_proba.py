import pandas as pd
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import roc_auc_score
from sklearn.model_selection import train_test_split

# rank quality of a species classifier, reported as ROC AUC on a held-out quarter
df = pd.read_csv("data.csv")
X, y = df.drop(columns=["species"]), df["species"]
X_train, X_test, y_train, y_test = train_test_split(X, y, stratify=y, random_state=0)
model = LogisticRegression(max_iter=1000).fit(X_train, y_train)
proba = model.predict_proba(X_test)
print(f"score={roc_auc_score(y_test, proba, multi_class='ovr'):.4f}")
