import pandas as pd
from sklearn.model_selection import train_test_split
from sklearn.tree import DecisionTreeRegressor

df = pd.read_csv("data.csv")
X = df.drop(columns=["progression"])
y = df["progression"]
X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.25, random_state=0)

tree = DecisionTreeRegressor(criterion="mse", max_depth=3, random_state=0)
tree.fit(X_train, y_train)
print(f"score={tree.score(X_test, y_test):.4f}")
