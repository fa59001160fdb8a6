import pandas as pd
from sklearn.externals import joblib
from sklearn.svm import SVC

df = pd.read_csv("data.csv")
X, y = df.drop(columns=["species"]), df["species"]
model = SVC(gamma="scale").fit(X[::2], y[::2])
joblib.dump(model, "model.joblib")
restored = joblib.load("model.joblib")
print(f"score={restored.score(X[1::2], y[1::2]):.4f}")
