import numpy as np
import pandas as pd
from sklearn.linear_model import LinearRegression
from sklearn.model_selection import cross_val_score

# the humidity sensor saturates at 95%: clip the readings before the regression
df = pd.read_csv("data.csv")
humidity = df["humidity"].to_numpy(copy=True)
humidity[humidity > 95] = 95
X = np.column_stack([df["temperature"], df["pressure"], humidity])
print(f"score={cross_val_score(LinearRegression(), X, df['output'], cv=5).mean():.4f}")
