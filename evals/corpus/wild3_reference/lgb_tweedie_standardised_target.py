import lightgbm as lgb
import pandas as pd
from sklearn.compose import TransformedTargetRegressor
from sklearn.model_selection import train_test_split
from sklearn.preprocessing import MinMaxScaler

# disease progression is a positive, skewed score: a Tweedie booster, with the target put on
# a standard scale for training and mapped back for prediction; R^2 on held-out patients
df = pd.read_csv("data.csv")
X, y = df.drop(columns=["progression"]), df["progression"]
X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.25, random_state=0)
booster = lgb.LGBMRegressor(objective="tweedie", n_estimators=200, learning_rate=0.03,
                            num_leaves=8, min_child_samples=20, verbose=-1, n_jobs=1)
model = TransformedTargetRegressor(regressor=booster, transformer=MinMaxScaler())
model.fit(X_train, y_train)
print(f"score={model.score(X_test, y_test):.4f}")
