from sklearn.neural_network import MLPClassifier


def build_pipeline(task):
    return MLPClassifier(hidden_layer_sizes=(32,), max_iter=2, random_state=0)
