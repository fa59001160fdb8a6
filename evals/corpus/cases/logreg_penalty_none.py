import pandas as pd
from sklearn.model_selection import train_test_split
from sklearn.linear_model import LogisticRegression
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

df = pd.read_csv("data.csv")
X = df.drop(columns=["malignant"])
y = df["malignant"]
X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.25, random_state=0)

model = make_pipeline(StandardScaler(), LogisticRegression(penalty="none", max_iter=2000))
model.fit(X_train, y_train)
print(f"score={model.score(X_test, y_test):.4f}")
