"""pipesmith's neural estimators: PyTorch and Keras multilayer perceptrons behind a
scikit-learn face.

Generated candidate modules import them from here (`from pipesmith.estimators import
TorchMLPClassifier`), so a fitted model pickles them by reference and loads in any process
with pipesmith installed. Importing this package imports neither torch nor TensorFlow (nor
XGBoost or CatBoost): each estimator imports its framework when it first trains or predicts.
"""

from pipesmith.estimators.boost import CatBoostLabelClassifier, XGBLabelClassifier
from pipesmith.estimators.dates import DateFeatures
from pipesmith.estimators.decision import ClassWeightedClassifier
from pipesmith.estimators.keras_mlp import KerasMLP, KerasMLPClassifier, KerasMLPRegressor
from pipesmith.estimators.stack import LinearStackClassifier, LinearStackRegressor
from pipesmith.estimators.torch_mlp import TorchMLP, TorchMLPClassifier, TorchMLPRegressor

__all__ = ["CatBoostLabelClassifier", "ClassWeightedClassifier", "DateFeatures", "KerasMLP",
           "KerasMLPClassifier", "KerasMLPRegressor", "LinearStackClassifier",
           "LinearStackRegressor", "TorchMLP", "TorchMLPClassifier",
           "TorchMLPRegressor", "XGBLabelClassifier"]
