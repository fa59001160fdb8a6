import pandas as pd
from sklearn.linear_model import SGDClassifier
from sklearn.model_selection import cross_val_score
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

# a linear SVM trained by stochastic gradient descent, 50 passes
df = pd.read_csv("data.csv")
X, y = df.drop(columns=["malignant"]), df["malignant"]
model = make_pipeline(StandardScaler(), SGDClassifier(loss="hinge", n_iter=50, random_state=0))
print(f"score={cross_val_score(model, X, y, cv=5).mean():.4f}")
