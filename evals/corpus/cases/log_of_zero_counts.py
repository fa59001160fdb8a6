import numpy as np
import pandas as pd
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import train_test_split

# support calls are skewed: use their log, with tenure and fee
df = pd.read_csv("data.csv")
df["log_calls"] = np.log(df["support_calls"])
X = df[["tenure_months", "monthly_fee", "log_calls"]]
X_train, X_test, y_train, y_test = train_test_split(X, df["churned"], test_size=0.25, random_state=0)
model = LogisticRegression(max_iter=1000).fit(X_train, y_train)
print(f"score={model.score(X_test, y_test):.4f}")
