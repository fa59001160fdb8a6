import pandas as pd
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import accuracy_score, classification_report
from sklearn.model_selection import train_test_split
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

# species from the flower measurements, with a per-species report for every species we
# catalogue
SPECIES = ["setosa", "versicolor", "virginica", "hybrid"]
df = pd.read_csv("data.csv")
X, y = df.drop(columns=["species"]), df["species"]
X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.3, random_state=0)
model = make_pipeline(StandardScaler(), LogisticRegression(max_iter=1000)).fit(X_train, y_train)
pred = model.predict(X_test)
print(classification_report(y_test, pred, labels=SPECIES, target_names=SPECIES,
                            zero_division=0))
print(f"score={accuracy_score(y_test, pred):.4f}")
