from sklearn.neural_network import MLPClassifier
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler


def build_pipeline(task):
    return make_pipeline(StandardScaler(), MLPClassifier(solver="sgd", learning_rate_init=10.0,
                                                         max_iter=50, random_state=0))
