import pandas as pd
from catboost import CatBoostClassifier
from sklearn.model_selection import train_test_split

# sex and port as categorical features; the class is left out of this model
df = pd.read_csv("data.csv")
df["embarked"] = df["embarked"].fillna("S")
cat_idx = [df.columns.get_loc(c) for c in ["sex", "embarked"]]
X, y = df.drop(columns=["survived", "pclass"]), df["survived"]
X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.25, random_state=0)
model = CatBoostClassifier(iterations=200, depth=4, random_seed=0, thread_count=1,
                           verbose=0, allow_writing_files=False)
model.fit(X_train, y_train, cat_features=cat_idx)
print(f"score={model.score(X_test, y_test):.4f}")
