import pandas as pd
from sklearn.ensemble import HistGradientBoostingClassifier

df = pd.read_csv("data.csv")
for column, missing in df.isna().sum().iteritems():
    print(column, missing)
X = pd.get_dummies(df.drop(columns=["survived"]), columns=["sex", "embarked"])
y = df["survived"]
model = HistGradientBoostingClassifier(max_iter=50, random_state=0)
model.fit(X[:300], y[:300])
print(f"score={model.score(X[300:], y[300:]):.4f}")
