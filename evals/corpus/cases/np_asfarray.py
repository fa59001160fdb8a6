import numpy as np
import pandas as pd
from sklearn.linear_model import LogisticRegression
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

df = pd.read_csv("data.csv")
X = np.asfarray(df.drop(columns=["malignant"]))
y = df["malignant"].to_numpy()
model = make_pipeline(StandardScaler(), LogisticRegression()).fit(X[:400], y[:400])
print(f"score={model.score(X[400:], y[400:]):.4f}")
