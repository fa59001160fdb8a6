import pandas as pd
from sklearn.discriminant_analysis import LinearDiscriminantAnalysis
from sklearn.model_selection import train_test_split
from sklearn.neighbors import KNeighborsClassifier
from sklearn.preprocessing import StandardScaler

# reduce the 30 cell measurements to 2 discriminant features, then classify tumours with
# nearest neighbours in that plane
df = pd.read_csv("data.csv")
X, y = df.drop(columns=["malignant"]), df["malignant"]
X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.25, stratify=y,
                                                    random_state=0)
scaler = StandardScaler().fit(X_train)
extracted_features = 2
lda = LinearDiscriminantAnalysis(n_components=extracted_features)
P_train = lda.fit_transform(scaler.transform(X_train), y_train)
P_test = lda.transform(scaler.transform(X_test))
knn = KNeighborsClassifier(n_neighbors=15).fit(P_train, y_train)
print(f"score={knn.score(P_test, y_test):.4f}")
