import pandas as pd
from sklearn.linear_model import LinearRegression
from sklearn.metrics import r2_score
from sklearn.model_selection import train_test_split
from sklearn.neighbors import LocalOutlierFactor
from sklearn.preprocessing import StandardScaler

# the plant's output from its sensor readings; readings that look like sensor faults
# (local outliers) are dropped from the training rows before the regression is fitted
df = pd.read_csv("data.csv")
X, y = df.drop(columns=["output"]), df["output"]
X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.25, random_state=0)
scaler = StandardScaler().fit(X_train)
detector = LocalOutlierFactor(n_neighbors=20, contamination=0.05, novelty=True)
inliers = detector.fit_predict(scaler.transform(X_train)) == 1
model = LinearRegression().fit(X_train[inliers], y_train[inliers])
print(f"dropped {int((~inliers).sum())} training readings")
print(f"score={r2_score(y_test, model.predict(X_test)):.4f}")
