import pandas as pd
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import cross_val_score

# keep the columns whose correlation with survival is above 0.1, then fit
df = pd.read_csv("data.csv")
df["age"] = df["age"].fillna(df["age"].median())
corr = df.corr(numeric_only=True)["survived"].drop("survived").abs()
keep = corr[corr > 0.1].index.tolist()
model = LogisticRegression(max_iter=1000)
print(f"score={cross_val_score(model, df[keep], df['survived'], cv=5, scoring='roc_auc').mean():.4f}")
