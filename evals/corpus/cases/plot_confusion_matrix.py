import matplotlib
matplotlib.use("Agg")
import pandas as pd
from sklearn.metrics import plot_confusion_matrix
from sklearn.model_selection import train_test_split
from sklearn.tree import DecisionTreeClassifier

df = pd.read_csv("data.csv")
X, y = df.drop(columns=["species"]), df["species"]
X_train, X_test, y_train, y_test = train_test_split(X, y, random_state=0)
clf = DecisionTreeClassifier(max_depth=3, random_state=0).fit(X_train, y_train)
plot_confusion_matrix(clf, X_test, y_test)
matplotlib.pyplot.savefig("confusion.png")
print(f"score={clf.score(X_test, y_test):.4f}")
