import pandas as pd
from sklearn.ensemble import RandomForestClassifier

df = pd.read_csv("data.csv")
features = ["Pclass", "Fare"]
X = df[features]
y = df["survived"]
model = RandomForestClassifier(n_estimators=100, max_depth=4, random_state=0)
model.fit(X[:300], y[:300])
print(f"score={model.score(X[300:], y[300:]):.4f}")
