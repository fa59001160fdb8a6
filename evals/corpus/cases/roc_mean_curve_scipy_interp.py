import numpy as np
import pandas as pd
from scipy import interp
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import auc, roc_curve
from sklearn.model_selection import StratifiedKFold
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

# the mean ROC curve of a scaled logistic regression over 5 stratified folds: each fold's
# curve is resampled on a common false-positive grid, the curves are averaged, and the area
# under the mean curve is reported
df = pd.read_csv("data.csv")
X, y = df.drop(columns=["malignant"]), df["malignant"]
mean_fpr = np.linspace(0, 1, 100)
tprs = []
for train, test in StratifiedKFold(n_splits=5, shuffle=True, random_state=0).split(X, y):
    model = make_pipeline(StandardScaler(), LogisticRegression(max_iter=1000))
    model.fit(X.iloc[train], y.iloc[train])
    fpr, tpr, _ = roc_curve(y.iloc[test], model.predict_proba(X.iloc[test])[:, 1])
    tprs.append(interp(mean_fpr, fpr, tpr))
    tprs[-1][0] = 0.0
mean_tpr = np.mean(tprs, axis=0)
mean_tpr[-1] = 1.0
print(f"score={auc(mean_fpr, mean_tpr):.4f}")
