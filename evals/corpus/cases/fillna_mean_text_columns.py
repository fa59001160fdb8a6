import pandas as pd
from sklearn.ensemble import RandomForestClassifier
from sklearn.model_selection import cross_val_score

# pandas 2+: DataFrame.mean() no longer drops text columns silently (numeric_only=False)
df = pd.read_csv("data.csv")
df = df.fillna(df.mean())
X = pd.get_dummies(df.drop(columns=["survived"]))
print(f"score={cross_val_score(RandomForestClassifier(random_state=0), X, df['survived']).mean():.4f}")
