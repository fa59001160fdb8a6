from sklearn.linear_model import SGDClassifier
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler


def build_pipeline(task):
    return make_pipeline(StandardScaler(),
                         SGDClassifier(loss="log", alpha=1e-3, random_state=task["seed"]))
