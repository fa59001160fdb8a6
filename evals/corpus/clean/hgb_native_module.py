from sklearn.compose import ColumnTransformer
from sklearn.ensemble import HistGradientBoostingClassifier
from sklearn.pipeline import Pipeline
from sklearn.preprocessing import OrdinalEncoder


def build_pipeline(task):
    text = ["sex", "embarked"]
    prep = ColumnTransformer(
        [("text", OrdinalEncoder(handle_unknown="use_encoded_value", unknown_value=-1), text)],
        remainder="passthrough")
    model = HistGradientBoostingClassifier(max_iter=100, random_state=task["seed"])
    return Pipeline([("prep", prep), ("model", model)])
