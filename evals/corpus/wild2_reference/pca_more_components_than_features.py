import pandas as pd
from sklearn.decomposition import PCA
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import train_test_split
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

# compress the measurements with PCA before a logistic regression
df = pd.read_csv("data.csv")
X, y = df.drop(columns=["cultivar"]), df["cultivar"]
X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.3, random_state=0, stratify=y)
model = make_pipeline(StandardScaler(), PCA(n_components=8, svd_solver="full"),
                      LogisticRegression(max_iter=1000))
model.fit(X_train, y_train)
print(f"score={model.score(X_test, y_test):.4f}")
