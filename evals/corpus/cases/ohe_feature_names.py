import pandas as pd
from sklearn.ensemble import RandomForestClassifier
from sklearn.preprocessing import OneHotEncoder

df = pd.read_csv("data.csv").fillna({"embarked": "S", "age": 30})
encoder = OneHotEncoder(sparse=False, handle_unknown="ignore")
onehot = encoder.fit_transform(df[["sex", "embarked"]])
encoded = pd.DataFrame(onehot, columns=encoder.get_feature_names(["sex", "embarked"]))
X = pd.concat([df[["pclass", "age", "fare"]], encoded], axis=1)
y = df["survived"]
model = RandomForestClassifier(n_estimators=50, random_state=0)
model.fit(X[:300], y[:300])
print(f"score={model.score(X[300:], y[300:]):.4f}")
