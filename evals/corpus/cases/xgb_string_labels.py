import pandas as pd
from sklearn.model_selection import train_test_split
from xgboost import XGBClassifier

df = pd.read_csv("data.csv")
X, y = df.drop(columns=["species"]), df["species"]
X_train, X_test, y_train, y_test = train_test_split(X, y, stratify=y, random_state=0)
model = XGBClassifier(n_estimators=50, max_depth=3, n_jobs=1).fit(X_train, y_train)
print(f"score={(model.predict(X_test) == y_test).mean():.4f}")
