import pandas as pd
from sklearn.ensemble import RandomForestClassifier

df = pd.read_csv("data.csv")
df.columns = [c.title() for c in df.columns]
features = ["Pclass", "Fare"]
X, y = df[features], df["Survived"]
model = RandomForestClassifier(n_estimators=100, max_depth=4, random_state=0)
model.fit(X[:300], y[:300])
print(f"score={model.score(X[300:], y[300:]):.4f}")
