import pandas as pd
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import accuracy_score
from sklearn.model_selection import train_test_split
from sklearn.preprocessing import StandardScaler

# a linear model of the diagnosis; accuracy on a held-out quarter
df = pd.read_csv("data.csv")
X, y = df.drop(columns=["malignant"]), df["malignant"]
X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.25, random_state=0)
scaler = StandardScaler().fit(X_train)
model = LogisticRegression(max_iter=1000).fit(scaler.transform(X_train), y_train)
y_pred = model.predict(scaler.transform(X_test))
print(f"score={accuracy_score(y_test, y_pred):.4f}")
