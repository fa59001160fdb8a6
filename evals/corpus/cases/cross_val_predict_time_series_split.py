import pandas as pd
from sklearn.linear_model import LinearRegression
from sklearn.metrics import r2_score
from sklearn.model_selection import TimeSeriesSplit, cross_val_predict

# the plant's readings are logged in time order: each block of readings is predicted by a
# model trained only on the readings before it, and the out-of-sample predictions are scored
df = pd.read_csv("data.csv")
X, y = df.drop(columns=["output"]), df["output"]
cv = TimeSeriesSplit(n_splits=5)
pred = cross_val_predict(LinearRegression(), X, y, cv=cv)
print(f"score={r2_score(y, pred):.4f}")
