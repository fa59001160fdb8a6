import pandas as pd
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import train_test_split

# passengers with a recorded age; class, sex, age and fare predict survival
df = pd.read_csv("data.csv")
df["female"] = (df["sex"] == "female").astype(int)
X = df[["pclass", "female", "age", "fare"]].dropna()
y = df.loc[X.index, "survived"]
X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.25, random_state=0)
model = LogisticRegression(max_iter=1000).fit(X_train, y_train)
print(f"score={model.score(X_test, y_test):.4f}")
