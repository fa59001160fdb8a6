from sklearn.compose import ColumnTransformer
from sklearn.impute import SimpleImputer
from sklearn.linear_model import Ridge
from sklearn.pipeline import Pipeline, make_pipeline
from sklearn.preprocessing import OneHotEncoder, StandardScaler

NUMERIC = ["rooms", "area", "year_built"]


def build_pipeline(task):
    numeric = make_pipeline(SimpleImputer(strategy="median"), StandardScaler())
    text = OneHotEncoder(handle_unknown="ignore", sparse_output=False)
    prep = ColumnTransformer([("num", numeric, NUMERIC), ("text", text, ["neighborhood"])])
    return Pipeline([("prep", prep), ("ridge", Ridge(alpha=1.0))])
