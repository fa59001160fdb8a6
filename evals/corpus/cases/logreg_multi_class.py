from sklearn.linear_model import LogisticRegression
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler


def build_pipeline(task):
    return make_pipeline(StandardScaler(),
                         LogisticRegression(multi_class="multinomial", solver="lbfgs"))
