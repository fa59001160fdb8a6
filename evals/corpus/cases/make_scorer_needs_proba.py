import pandas as pd
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import make_scorer, roc_auc_score
from sklearn.model_selection import cross_val_score
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

# make_scorer(needs_proba=True): deprecated in 1.4, removed in 1.6 (response_method=...)
df = pd.read_csv("data.csv")
X, y = df.drop(columns=["malignant"]), df["malignant"]
auc = make_scorer(roc_auc_score, needs_proba=True)
model = make_pipeline(StandardScaler(), LogisticRegression(max_iter=1000))
print(f"score={cross_val_score(model, X, y, scoring=auc).mean():.4f}")
