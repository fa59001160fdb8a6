import pandas as pd
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import cross_val_score
from sklearn.tree import DecisionTreeClassifier

df = pd.read_csv("data.csv").dropna()
X = pd.get_dummies(df.drop(columns=["survived"]), columns=["sex", "embarked"])
y = df["survived"]
results = pd.DataFrame(columns=["model", "accuracy"])
for name, model in [("logreg", LogisticRegression(max_iter=1000)),
                    ("tree", DecisionTreeClassifier(max_depth=3))]:
    accuracy = cross_val_score(model, X, y, cv=3).mean()
    results = results.append({"model": name, "accuracy": accuracy}, ignore_index=True)
print(results)
print(f"score={results['accuracy'].max():.4f}")
