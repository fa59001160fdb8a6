import pandas as pd
from sklearn.model_selection import train_test_split
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.svm import LinearSVC

# a sparse linear SVM (l1 penalty keeps few of the 30 measurements) for malignant vs benign
df = pd.read_csv("data.csv")
X, y = df.drop(columns=["malignant"]), df["malignant"]
X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.25, random_state=0, stratify=y)
model = make_pipeline(StandardScaler(),
                      LinearSVC(penalty="l1", loss="hinge", C=0.5, dual=False, max_iter=5000))
model.fit(X_train, y_train)
print(f"score={model.score(X_test, y_test):.4f}")
