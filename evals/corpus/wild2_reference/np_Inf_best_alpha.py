import numpy as np
import pandas as pd
from sklearn.linear_model import Ridge
from sklearn.model_selection import cross_val_score

# pick the ridge penalty with the lowest cross-validated error, report its R^2
df = pd.read_csv("data.csv")
X, y = df.drop(columns=["progression"]), df["progression"]
best_alpha, best_error = None, np.inf
for alpha in [0.01, 0.1, 1.0, 10.0]:
    error = -cross_val_score(Ridge(alpha=alpha), X, y, cv=5, scoring="neg_mean_squared_error").mean()
    if error < best_error:
        best_alpha, best_error = alpha, error
print(f"score={cross_val_score(Ridge(alpha=best_alpha), X, y, cv=5).mean():.4f}")
