import numpy as np
import pandas as pd
import xgboost as xgb
from sklearn.model_selection import train_test_split

# churn with xgboost: plan and region one-hot encoded next to the numeric columns, a binary
# logistic objective
df = pd.read_csv("data.csv")
df["region"] = df["region"].fillna("unknown")
X = pd.get_dummies(df.drop(columns=["churned"]), columns=["plan", "region"], dtype=float)
y = df["churned"]
X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.25, random_state=0, stratify=y)
model = xgb.XGBClassifier(objective="binary:logistic", n_estimators=200, max_depth=3,
                          learning_rate=0.05, n_jobs=1, random_state=0)
model.fit(X_train, y_train)
print(f"score={np.mean(model.predict(X_test) == y_test.to_numpy()):.4f}")
