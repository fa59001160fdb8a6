import pandas as pd
from sklearn.model_selection import GridSearchCV, train_test_split
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.svm import SVC

# tune an RBF SVM's C and gamma on the training cultivars, score the best one on held-out wines
df = pd.read_csv("data.csv")
X, y = df.drop(columns=["cultivar"]), df["cultivar"]
X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.3, random_state=0, stratify=y)
grid = {"svc__C": [0.1, 1, 10], "svc__gamma": ["scale", 0.01, 0.1]}
search = GridSearchCV(make_pipeline(StandardScaler(), SVC()), grid, cv=5, iid=False)
search.fit(X_train, y_train)
print(f"score={search.score(X_test, y_test):.4f}")
