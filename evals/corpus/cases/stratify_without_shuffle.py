import pandas as pd
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import roc_auc_score
from sklearn.model_selection import train_test_split
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

# churn from tenure, fee and support calls; the rows are in sign-up order, so the latest 20%
# of sign-ups are held out (no shuffling), with the churn rate kept the same in both parts
df = pd.read_csv("data.csv")
X, y = df[["tenure_months", "monthly_fee", "support_calls"]], df["churned"]
X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.2, shuffle=False, stratify=y)
model = make_pipeline(StandardScaler(), LogisticRegression()).fit(X_train, y_train)
print(f"score={roc_auc_score(y_test, model.predict_proba(X_test)[:, 1]):.4f}")
