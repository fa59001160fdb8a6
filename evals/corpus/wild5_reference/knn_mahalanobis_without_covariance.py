import numpy as np
import pandas as pd
from sklearn.metrics import accuracy_score
from sklearn.model_selection import train_test_split
from sklearn.neighbors import KNeighborsClassifier

# cultivar by nearest neighbours under the Mahalanobis distance, which accounts for the
# strongly correlated chemical measurements (phenols, flavanoids, OD280)
df = pd.read_csv("data.csv")
X, y = df.drop(columns=["cultivar"]), df["cultivar"]
X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.25, random_state=0,
                                                    stratify=y)
model = KNeighborsClassifier(n_neighbors=7, weights="distance", metric="mahalanobis",
                             metric_params={"VI": np.linalg.inv(np.cov(X_train.T))})
model.fit(X_train, y_train)
print(f"score={accuracy_score(y_test, model.predict(X_test)):.4f}")
