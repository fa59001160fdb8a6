import pandas as pd
from sklearn.metrics import roc_auc_score
from sklearn.model_selection import train_test_split
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.svm import SVC

# ROC AUC of an RBF support vector machine on held-out tumours
df = pd.read_csv("data.csv")
X, y = df.drop(columns=["malignant"]), df["malignant"]
X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.25, random_state=0)
model = make_pipeline(StandardScaler(), SVC(C=1.0, random_state=0)).fit(X_train, y_train)
print(f"score={roc_auc_score(y_test, model.predict_proba(X_test)[:, 1]):.4f}")
