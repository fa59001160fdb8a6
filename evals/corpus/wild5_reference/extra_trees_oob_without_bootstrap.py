import pandas as pd
from sklearn.ensemble import ExtraTreesClassifier
from sklearn.metrics import accuracy_score
from sklearn.model_selection import train_test_split

# an extra-trees classifier whose out-of-bag accuracy is used as the validation estimate,
# checked once against a held-out set
df = pd.read_csv("data.csv")
X, y = df.drop(columns=["malignant"]), df["malignant"]
X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.25, random_state=0,
                                                    stratify=y)
model = ExtraTreesClassifier(n_estimators=200, oob_score=True, bootstrap=True,
                             random_state=0)
model.fit(X_train, y_train)
print(f"out-of-bag accuracy: {model.oob_score_:.4f}")
print(f"score={accuracy_score(y_test, model.predict(X_test)):.4f}")
