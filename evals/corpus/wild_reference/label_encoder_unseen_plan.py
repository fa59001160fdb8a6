import pandas as pd
from sklearn.ensemble import RandomForestClassifier
from sklearn.metrics import roc_auc_score
from sklearn.preprocessing import LabelEncoder

# integer-code the plan, train on the first 400 sign-ups, score the latest 100
df = pd.read_csv("data.csv")
features = ["plan", "tenure_months", "monthly_fee", "support_calls"]
train, test = df.iloc[:400].copy(), df.iloc[400:].copy()
encoder = LabelEncoder().fit(df["plan"])
train["plan"] = encoder.transform(train["plan"])
test["plan"] = encoder.transform(test["plan"])
model = RandomForestClassifier(n_estimators=200, min_samples_leaf=5, random_state=0)
model.fit(train[features], train["churned"])
proba = model.predict_proba(test[features])[:, 1]
print(f"score={roc_auc_score(test['churned'], proba):.4f}")
