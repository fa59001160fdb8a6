import pandas as pd
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import train_test_split

# average probability the model gives to the true species of each held-out flower
df = pd.read_csv("data.csv")
X, y = df.drop(columns=["species"]), df["species"]
X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.3, random_state=0, stratify=y)
model = LogisticRegression(max_iter=1000).fit(X_train, y_train)
proba = pd.DataFrame(model.predict_proba(X_test), columns=model.classes_)
print(f"score={proba.lookup(range(len(proba)), y_test).mean():.4f}")
