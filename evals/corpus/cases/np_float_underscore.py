import numpy as np
from sklearn.linear_model import Ridge
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import FunctionTransformer


def build_pipeline(task):
    cast = FunctionTransformer(lambda X: np.asarray(X, dtype=np.float_))
    return make_pipeline(cast, Ridge(alpha=0.1))
