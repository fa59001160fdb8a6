from sklearn.linear_model import LogisticRegression
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import Imputer, StandardScaler


def build_pipeline(task):
    return make_pipeline(Imputer(strategy="median"), StandardScaler(),
                         LogisticRegression(max_iter=1000))
