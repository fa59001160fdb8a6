import numpy as np
import pandas as pd
from catboost import CatBoostClassifier
from sklearn.model_selection import train_test_split

# survival with CatBoost: class, sex and port coded as integers and declared categorical
df = pd.read_csv("data.csv")
df["sex"] = (df["sex"] == "female").astype(int)
df["embarked"] = df["embarked"].map({"S": 0, "C": 1, "Q": 2})
columns = ["pclass", "sex", "embarked", "age", "fare"]
X, y = df[columns], df["survived"].to_numpy()
X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.25, random_state=0, stratify=y)
model = CatBoostClassifier(iterations=300, depth=4, random_seed=0, thread_count=1, verbose=0)
model.fit(X_train, y_train, cat_features=[0, 1, 2])
print(f"score={np.mean(model.predict(X_test) == y_test):.4f}")
