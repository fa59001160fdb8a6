import pandas as pd
from sklearn.model_selection import GridSearchCV
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import OneHotEncoder
from sklearn.tree import DecisionTreeClassifier

df = pd.read_csv("data.csv").dropna().reset_index(drop=True)
encoder = OneHotEncoder(sparse_output=False, handle_unknown="ignore")
encoded = encoder.fit_transform(df[["sex", "embarked"]])
names = encoder.get_feature_names_out(["sex", "embarked"])
X = pd.concat([df[["pclass", "age", "fare"]], pd.DataFrame(encoded, columns=names)], axis=1)
y = df["survived"]
search = GridSearchCV(make_pipeline(DecisionTreeClassifier(random_state=0)),
                      {"decisiontreeclassifier__max_depth": [2, 3, 4]}, cv=3)
best = search.fit(X, y).best_estimator_
tree = best.named_steps["decisiontreeclassifier"]
print("depth", tree.get_depth(), "leaves", tree.get_n_leaves(), "features", tree.n_features_in_)
print(f"score={search.best_score_:.4f}")
