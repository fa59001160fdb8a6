import pandas as pd
from sklearn.linear_model import Ridge

df = pd.read_csv("data.csv").dropna()
train, test = df[df.index < 220], df[df.index >= 220]
X_train = pd.get_dummies(train.drop(columns=["price"]))
X_test = pd.get_dummies(test.drop(columns=["price"]))
model = Ridge(alpha=1.0).fit(X_train, train["price"])
print(f"score={model.score(X_test, test['price']):.4f}")
