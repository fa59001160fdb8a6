import pandas as pd
from sklearn.linear_model import Ridge
from sklearn.model_selection import KFold, cross_val_score

# reproducible 5-fold estimate of a ridge model
df = pd.read_csv("data.csv")
X, y = df.drop(columns=["progression"]), df["progression"]
cv = KFold(n_splits=5, shuffle=True, random_state=42)
print(f"score={cross_val_score(Ridge(alpha=0.1), X, y, cv=cv).mean():.4f}")
