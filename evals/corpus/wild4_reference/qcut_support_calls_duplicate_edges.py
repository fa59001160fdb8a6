import numpy as np
import pandas as pd
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import train_test_split
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import OneHotEncoder

# churn from binned behaviour: tenure and support calls cut into quartile bands, the bands and
# the plan one-hot encoded for a logistic regression
df = pd.read_csv("data.csv")
df["tenure_band"] = pd.qcut(df["tenure_months"], 4, labels=False)
df["calls_band"] = pd.qcut(df["support_calls"], 4, labels=False, duplicates="drop")
X = df[["tenure_band", "calls_band", "plan"]].astype(str)
y = df["churned"]
X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.25, random_state=0, stratify=y)
model = make_pipeline(OneHotEncoder(handle_unknown="ignore"), LogisticRegression(max_iter=1000))
model.fit(X_train, y_train)
print(f"score={np.mean(model.predict(X_test) == y_test.to_numpy()):.4f}")
