import pandas as pd
from sklearn.feature_selection import RFE
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import cross_val_score
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

# keep the 10 measurements a logistic regression ranks highest (recursive elimination),
# then fit on those
df = pd.read_csv("data.csv")
X, y = df.drop(columns=["malignant"]), df["malignant"]
clf = LogisticRegression(max_iter=1000)
selector = RFE(clf, 10)
model = make_pipeline(StandardScaler(), selector)
print(f"score={cross_val_score(model, X, y, cv=5).mean():.4f}")
