import pandas as pd
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import cross_val_score

# one-hot every text column, impute ages, fit a logistic regression
df = pd.read_csv("data.csv")
X, y = df.drop(columns=["survived"]), df["survived"]
X["age"] = X["age"].fillna(X["age"].median())
text_columns = [c for c in X.columns if X[c].dtype == object]
X = pd.get_dummies(X, columns=text_columns, dtype=float)
model = LogisticRegression(max_iter=1000)
print(f"score={cross_val_score(model, X, y, cv=5, scoring='roc_auc').mean():.4f}")
