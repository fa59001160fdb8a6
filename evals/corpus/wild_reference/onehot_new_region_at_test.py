import pandas as pd
from sklearn.compose import ColumnTransformer
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import roc_auc_score
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import OneHotEncoder, StandardScaler

# churn model trained on the first 400 sign-ups, evaluated on the latest 100
df = pd.read_csv("data.csv")
df["region"] = df["region"].fillna("unknown")
train, test = df.iloc[:400], df.iloc[400:]
features = ["plan", "region", "tenure_months", "monthly_fee", "support_calls"]
prep = ColumnTransformer([
    ("cat", OneHotEncoder(handle_unknown="ignore"), ["plan", "region"]),
    ("num", StandardScaler(), ["tenure_months", "monthly_fee", "support_calls"]),
])
model = make_pipeline(prep, LogisticRegression(max_iter=1000))
model.fit(train[features], train["churned"])
proba = model.predict_proba(test[features])[:, 1]
print(f"score={roc_auc_score(test['churned'], proba):.4f}")
