import pandas as pd
from sklearn.ensemble import RandomForestClassifier
from sklearn.metrics import f1_score
from sklearn.model_selection import train_test_split

# cultivar classifier scored by F1 on a held-out split
df = pd.read_csv("data.csv")
X, y = df.drop(columns=["cultivar"]), df["cultivar"]
X_train, X_test, y_train, y_test = train_test_split(X, y, stratify=y, random_state=1)
model = RandomForestClassifier(n_estimators=100, random_state=0).fit(X_train, y_train)
print(f"score={f1_score(y_test, model.predict(X_test)):.4f}")
