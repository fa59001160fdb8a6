import numpy as np
import pandas as pd
from sklearn.ensemble import RandomForestClassifier

df = pd.read_csv("data.csv")
df["pclass"] = df["pclass"].astype(np.object)
X = pd.get_dummies(df.drop(columns=["survived"]), columns=["pclass", "sex", "embarked"])
X = X.fillna(X.median())
model = RandomForestClassifier(n_estimators=50, random_state=0)
model.fit(X[:300], df["survived"][:300])
print(f"score={model.score(X[300:], df['survived'][300:]):.4f}")
