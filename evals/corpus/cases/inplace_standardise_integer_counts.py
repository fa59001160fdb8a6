import numpy as np
import pandas as pd
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import train_test_split

# churn from tenure, support calls and a south-region flag, standardised by hand with the
# training rows' means and standard deviations
df = pd.read_csv("data.csv")
X = np.column_stack([df["tenure_months"].to_numpy(), df["support_calls"].to_numpy(),
                     (df["region"] == "south").astype(int).to_numpy()])
y = df["churned"].to_numpy()
X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.25, random_state=0, stratify=y)
mean, std = X_train.mean(axis=0), X_train.std(axis=0)
for part in (X_train, X_test):
    part -= mean
    part /= std
model = LogisticRegression(max_iter=1000).fit(X_train, y_train)
print(f"score={np.mean(model.predict(X_test) == y_test):.4f}")
