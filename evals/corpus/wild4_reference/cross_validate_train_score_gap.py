import pandas as pd
from sklearn.model_selection import KFold, cross_validate
from sklearn.tree import DecisionTreeRegressor

# plant output from the sensor readings; compare training and test scores over 10 folds to
# see how much the tree overfits
df = pd.read_csv("data.csv")
X, y = df[["temperature", "pressure", "humidity"]], df["output"]
testmodel = DecisionTreeRegressor(max_depth=4, random_state=0)
cv = KFold(n_splits=10, shuffle=True, random_state=0)
result = cross_validate(testmodel, X, y, cv=cv, return_train_score=True)
gap = result["train_score"].mean() - result["test_score"].mean()
print(f"train/test gap: {gap:.3f}")
print(f"score={result['test_score'].mean():.4f}")
