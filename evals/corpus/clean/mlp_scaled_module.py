from sklearn.compose import TransformedTargetRegressor
from sklearn.neural_network import MLPRegressor
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler


def build_pipeline(task):
    mlp = MLPRegressor(hidden_layer_sizes=(32, 16), learning_rate_init=0.01, max_iter=800,
                       early_stopping=True, random_state=task["seed"])
    return TransformedTargetRegressor(make_pipeline(StandardScaler(), mlp),
                                      transformer=StandardScaler())
