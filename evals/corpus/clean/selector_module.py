import numpy as np
from sklearn.compose import make_column_selector, make_column_transformer
from sklearn.impute import SimpleImputer
from sklearn.linear_model import LogisticRegression
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import OneHotEncoder, StandardScaler


def build_pipeline(task):
    prep = make_column_transformer(
        (make_pipeline(SimpleImputer(), StandardScaler()),
         make_column_selector(dtype_include=np.number)),
        (make_pipeline(SimpleImputer(strategy="most_frequent"),
                       OneHotEncoder(handle_unknown="ignore")),
         make_column_selector(dtype_include=object)))
    return make_pipeline(prep, LogisticRegression(max_iter=1000, C=0.5))
