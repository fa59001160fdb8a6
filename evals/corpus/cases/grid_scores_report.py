import pandas as pd
from sklearn.ensemble import ExtraTreesClassifier
from sklearn.metrics import classification_report
from sklearn.model_selection import GridSearchCV, train_test_split

# tune an extra-trees classifier, list the score of every grid point, then report on the
# held-out wines
df = pd.read_csv("data.csv")
X, y = df.drop(columns=["cultivar"]), df["cultivar"]
x_train, x_test, y_train, y_test = train_test_split(X, y, test_size=0.25, random_state=5)
parameter_grid = {"n_estimators": [25, 50, 100], "max_depth": [2, 4, 8]}
classifier = GridSearchCV(ExtraTreesClassifier(random_state=0), parameter_grid, cv=5,
                          scoring="precision_weighted")
classifier.fit(x_train, y_train)
print("Grid scores for the parameter grid:")
for params, avg_score, _ in classifier.grid_scores_:
    print(params, "-->", round(avg_score, 3))
print("Best parameters:", classifier.best_params_)
y_pred = classifier.predict(x_test)
print(classification_report(y_test, y_pred))
print(f"score={(y_pred == y_test).mean():.4f}")
