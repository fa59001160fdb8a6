import pandas as pd
from sklearn.ensemble import RandomForestClassifier
from sklearn.metrics import accuracy_score
from sklearn.model_selection import train_test_split
from sklearn.preprocessing import LabelEncoder

# churn from the subscriber table: gaps filled, the text columns label-encoded, then a
# random forest
df = pd.read_csv("data.csv")
df = df.fillna(0)
for column in ["plan", "region"]:
    df[column] = LabelEncoder().fit_transform(df[column])
X, y = df.drop(columns=["churned"]), df["churned"]
X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.3, random_state=0,
                                                    stratify=y)
model = RandomForestClassifier(n_estimators=200, min_samples_leaf=5, random_state=0)
model.fit(X_train, y_train)
print(f"score={accuracy_score(y_test, model.predict(X_test)):.4f}")
