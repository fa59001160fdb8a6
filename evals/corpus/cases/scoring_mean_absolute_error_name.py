import pandas as pd
from sklearn.linear_model import LinearRegression
from sklearn.model_selection import cross_val_score

# cross-validated MAE of a linear model, reported as 1 - MAE / std(output)
df = pd.read_csv("data.csv")
X, y = df.drop(columns=["output"]), df["output"]
errors = cross_val_score(LinearRegression(), X, y, cv=5, scoring="mean_absolute_error")
mae = abs(errors.mean())
print(f"score={1 - mae / y.std():.4f}")
