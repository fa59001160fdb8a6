import pandas as pd
from sklearn.ensemble import RandomForestClassifier
from sklearn.metrics import roc_auc_score
from sklearn.model_selection import train_test_split

df = pd.read_csv("data.csv")
X, y = df.drop(columns=["species"]), pd.factorize(df["species"])[0]
X_train, X_test, y_train, y_test = train_test_split(X, y, random_state=0, stratify=y)
forest = RandomForestClassifier(n_estimators=100, random_state=0).fit(X_train, y_train)
labels = forest.predict(X_test)
print("accuracy", (labels == y_test).mean())
auc = roc_auc_score(y_test, forest.predict_proba(X_test), multi_class="ovr")
print(f"score={auc:.4f}")
