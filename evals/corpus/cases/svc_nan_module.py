from sklearn.compose import ColumnTransformer
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import OneHotEncoder, StandardScaler
from sklearn.svm import SVC


def build_pipeline(task):
    prep = ColumnTransformer([("num", StandardScaler(), ["pclass", "age", "fare"]),
                              ("cat", OneHotEncoder(handle_unknown="ignore"), ["sex"])])
    return make_pipeline(prep, SVC())
