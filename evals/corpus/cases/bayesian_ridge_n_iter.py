import pandas as pd
from sklearn.model_selection import train_test_split
from sklearn.linear_model import BayesianRidge

df = pd.read_csv("data.csv")
X = df.drop(columns=["progression"])
y = df["progression"]
X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.25, random_state=0)

model = BayesianRidge(n_iter=500, tol=1e-4)
model.fit(X_train, y_train)
print(f"score={model.score(X_test, y_test):.4f}")
