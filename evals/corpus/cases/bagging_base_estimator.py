import pandas as pd
from sklearn.model_selection import train_test_split
from sklearn.ensemble import BaggingClassifier
from sklearn.tree import DecisionTreeClassifier

df = pd.read_csv("data.csv")
X = df.drop(columns=["malignant"])
y = df["malignant"]
X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.25, random_state=0)

base_classifier = DecisionTreeClassifier(max_depth=4)
bagging_classifier = BaggingClassifier(base_estimator=base_classifier, n_estimators=20,
                                       bootstrap=True, random_state=42)
bagging_classifier.fit(X_train, y_train)
print(f"score={bagging_classifier.score(X_test, y_test):.4f}")
