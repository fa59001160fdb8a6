import pandas as pd
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import cross_val_score

# pandas 3 copy-on-write: chained assignment fills a copy, so the NaN ages stay
df = pd.read_csv("data.csv")
df["age"][df["age"].isna()] = df["age"].median()
X = pd.get_dummies(df.drop(columns=["survived"]), dtype=float)
print(f"score={cross_val_score(LogisticRegression(max_iter=1000), X, df['survived']).mean():.4f}")
