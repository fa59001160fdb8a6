import numpy as np
import pandas as pd
import xgboost as xgb
from sklearn.model_selection import train_test_split

# survival with the missing ages filled in by a model: an xgboost regressor predicts age from
# class, sex, fare and port, its predictions replace the missing ages, and a second booster
# predicts survival
df = pd.read_csv("data.csv")
features = pd.get_dummies(df[["pclass", "sex", "fare", "embarked"]], dtype=float)
age_model = xgb.XGBRegressor(n_estimators=100, max_depth=3, learning_rate=0.1, n_jobs=1,
                             random_state=0)
age_model.fit(features, df["age"])
missing = df["age"].isna()
df.loc[missing, "age"] = age_model.predict(features[missing])
X = features.assign(age=df["age"])
y = df["survived"]
X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.25, random_state=0, stratify=y)
model = xgb.XGBClassifier(n_estimators=150, max_depth=2, learning_rate=0.05, n_jobs=1,
                          random_state=0)
model.fit(X_train, y_train)
print(f"score={np.mean(model.predict(X_test) == y_test.to_numpy()):.4f}")
