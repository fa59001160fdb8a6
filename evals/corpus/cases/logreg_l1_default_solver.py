import pandas as pd
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import cross_val_score
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

# sparse (L1) logistic regression to keep few of the 30 measurements
df = pd.read_csv("data.csv")
X, y = df.drop(columns=["malignant"]), df["malignant"]
model = make_pipeline(StandardScaler(), LogisticRegression(penalty="l1", C=0.5))
print(f"score={cross_val_score(model, X, y, cv=5).mean():.4f}")
