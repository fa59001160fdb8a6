import pandas as pd
from sklearn.linear_model import LogisticRegression

df = pd.read_csv("data.csv").dropna()
train, test = df.iloc[:250], df.iloc[250:]
X_train = pd.get_dummies(train.drop(columns=["survived"]), columns=["sex", "embarked"])
X_test = pd.get_dummies(test.drop(columns=["survived"]), columns=["sex", "embarked"])
model = LogisticRegression(max_iter=1000)
model.fit(X_train, train["survived"])
print(f"score={model.score(X_test, test['survived']):.4f}")
