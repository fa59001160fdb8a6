import numpy as np
import pandas as pd
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import accuracy_score
from sklearn.model_selection import train_test_split
from sklearn.preprocessing import OneHotEncoder, StandardScaler

# churn from the scaled numeric columns next to the one-hot plan and region, stacked into
# one dense feature matrix
df = pd.read_csv("data.csv")
numeric = ["tenure_months", "monthly_fee", "support_calls"]
categorical = ["plan", "region"]
train, test = train_test_split(df, test_size=0.3, random_state=0, stratify=df["churned"])
scaler = StandardScaler().fit(train[numeric])
encoder = OneHotEncoder(handle_unknown="ignore").fit(train[categorical].fillna("missing"))


def features(rows):
    onehot = encoder.transform(rows[categorical].fillna("missing")).toarray()
    return np.hstack([scaler.transform(rows[numeric]), onehot])


model = LogisticRegression(max_iter=1000).fit(features(train), train["churned"])
print(f"score={accuracy_score(test['churned'], model.predict(features(test))):.4f}")
