import numpy as np
import pandas as pd
from sklearn.ensemble import GradientBoostingClassifier
from sklearn.model_selection import train_test_split

# survival from the Titanic-style table: sex and port of embarkation turned into numeric codes
# in place, missing ages filled with the median
df = pd.read_csv("data.csv")
df.loc[df["sex"] == "male", "sex"] = 0
df.loc[df["sex"] == "female", "sex"] = 1
df.loc[df["embarked"] == "S", "embarked"] = 0
df.loc[df["embarked"] == "C", "embarked"] = 1
df.loc[df["embarked"] == "Q", "embarked"] = 2
df["age"] = df["age"].fillna(df["age"].median())
X = df[["pclass", "sex", "age", "fare", "embarked"]].astype(float)
y = df["survived"]
X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.25, random_state=0, stratify=y)
model = GradientBoostingClassifier(n_estimators=100, max_depth=2, learning_rate=0.05, random_state=0)
model.fit(X_train, y_train)
print(f"score={np.mean(model.predict(X_test) == y_test.to_numpy()):.4f}")
