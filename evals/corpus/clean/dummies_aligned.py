import pandas as pd
from sklearn.linear_model import Ridge

df = pd.read_csv("data.csv").dropna()
train, test = df.iloc[:220], df.iloc[220:]
X_train = pd.get_dummies(train.drop(columns=["price"]), dtype=float)
X_test = pd.get_dummies(test.drop(columns=["price"]), dtype=float)
X_train, X_test = X_train.align(X_test, join="left", axis=1, fill_value=0)
model = Ridge(alpha=1.0).fit(X_train, train["price"])
print(f"score={model.score(X_test, test['price']):.4f}")
