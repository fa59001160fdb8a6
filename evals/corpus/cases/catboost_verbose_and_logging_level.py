import pandas as pd
from catboost import CatBoostClassifier
from sklearn.model_selection import train_test_split

# quiet CatBoost on the churn table, text plan and region as categorical features
df = pd.read_csv("data.csv")
df["region"] = df["region"].fillna("unknown")
X, y = df.drop(columns=["churned"]), df["churned"]
X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.25, random_state=0)
model = CatBoostClassifier(iterations=200, depth=4, random_seed=0, thread_count=1,
                           verbose=0, logging_level="Silent", allow_writing_files=False)
model.fit(X_train, y_train, cat_features=["plan", "region"])
print(f"score={model.score(X_test, y_test):.4f}")
