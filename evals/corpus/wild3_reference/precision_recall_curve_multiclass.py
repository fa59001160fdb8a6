import pandas as pd
from sklearn.ensemble import RandomForestClassifier
from sklearn.metrics import auc, precision_recall_curve
from sklearn.model_selection import train_test_split

# how well the forest picks out cultivar 1 among the held-out wines: area under its
# precision-recall curve, from the forest's probability for cultivar 1
df = pd.read_csv("data.csv")
X, y = df.drop(columns=["cultivar"]), df["cultivar"]
X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.3, random_state=0, stratify=y)
forest = RandomForestClassifier(n_estimators=200, random_state=0, n_jobs=1).fit(X_train, y_train)
proba = forest.predict_proba(X_test)
precision, recall, _ = precision_recall_curve(y_test == 1, proba[:, 1])
print(f"score={auc(recall, precision):.4f}")
