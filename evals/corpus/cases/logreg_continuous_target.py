import pandas as pd
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import train_test_split

# "Unknown label type: continuous": a classifier fitted on a continuous target
df = pd.read_csv("data.csv")
X, y = df.drop(columns=["output"]), df["output"]
X_train, X_test, y_train, y_test = train_test_split(X, y, random_state=0)
model = LogisticRegression(max_iter=1000).fit(X_train, y_train)
print(f"score={model.score(X_test, y_test):.4f}")
