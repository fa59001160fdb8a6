"""A Keras 3 multilayer perceptron (TensorFlow backend) behind a scikit-learn face
(Keras imported lazily)."""

import warnings

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin, RegressorMixin
from sklearn.exceptions import ConvergenceWarning


def _keras(n_threads):
    """Keras 3 on the TensorFlow backend, with TensorFlow's thread pools capped."""
    import os

    os.environ.setdefault("KERAS_BACKEND", "tensorflow")
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
    import tensorflow as tf

    try:  # only possible before TensorFlow's first operation in this process
        tf.config.threading.set_intra_op_parallelism_threads(n_threads)
        tf.config.threading.set_inter_op_parallelism_threads(min(2, n_threads))
    except RuntimeError:
        pass
    import keras

    return keras


class KerasMLP(BaseEstimator):
    """A Keras 3 multilayer perceptron (TensorFlow backend) behind a scikit-learn face.

    fit() compiles and trains the network: float32 inputs, seeded and shuffled
    mini-batches, AdamW, optional gradient clipping, early stopping on a held-out
    validation split (restoring the best weights); TensorFlow places it on a GPU when
    one is visible. loss="auto" picks the loss that suits the task.
    """

    def __init__(self, hidden=(64, 32), learning_rate=0.001, batch_size=64, epochs=60,
                 patience=8, validation_fraction=0.15, weight_decay=0.0001, dropout=0.0,
                 clip_norm=None, loss="auto", input_width=None, n_jobs=1, random_state=0):
        self.hidden = hidden
        self.learning_rate = learning_rate
        self.batch_size = batch_size
        self.epochs = epochs
        self.patience = patience
        self.validation_fraction = validation_fraction
        self.weight_decay = weight_decay
        self.dropout = dropout
        self.clip_norm = clip_norm
        self.loss = loss
        self.input_width = input_width
        self.n_jobs = n_jobs
        self.random_state = random_state

    def _train(self, X, targets, n_outputs, activation, loss_name):
        big = max(self.hidden, default=0) * self.batch_size >= 1 << 17
        keras = _keras(max(1, min(int(self.n_jobs or 1), 4)) if big else 1)
        keras.utils.set_random_seed(self.random_state)
        X = np.asarray(X, dtype=np.float32)
        self.n_features_in_ = X.shape[1]
        layers = [keras.Input(shape=(self.input_width or X.shape[1],))]
        for units in self.hidden:
            layers.append(keras.layers.Dense(units, activation="relu"))
            if self.dropout:
                layers.append(keras.layers.Dropout(self.dropout, seed=self.random_state))
        layers.append(keras.layers.Dense(n_outputs, activation=activation))
        self.model_ = keras.Sequential(layers)
        self.model_.compile(
            optimizer=keras.optimizers.AdamW(learning_rate=self.learning_rate,
                                             weight_decay=self.weight_decay,
                                             clipnorm=self.clip_norm),
            loss=loss_name, jit_compile=False)
        validate = len(X) >= 50 and self.validation_fraction > 0
        monitor = "val_loss" if validate else "loss"
        history = self.model_.fit(
            X, targets, batch_size=self.batch_size, epochs=self.epochs, shuffle=True,
            validation_split=self.validation_fraction if validate else 0.0, verbose=0,
            callbacks=[keras.callbacks.TerminateOnNaN(),
                       keras.callbacks.EarlyStopping(monitor=monitor, patience=self.patience,
                                                     min_delta=1e-4,
                                                     restore_best_weights=True)])
        self.loss_curve_ = [float(v) for v in history.history["loss"]]
        self.validation_loss_ = [float(v) for v in history.history.get("val_loss", [])]
        self.n_epochs_ = len(self.loss_curve_)
        if not np.all(np.isfinite(self.loss_curve_)):
            raise FloatingPointError(
                f"loss is {self.loss_curve_[-1]} at epoch {self.n_epochs_}: training diverged")
        if self.n_epochs_ == self.epochs:  # early stopping never said it had converged
            warnings.warn(ConvergenceWarning(
                f"stopped by the epoch limit ({self.epochs}), not by early stopping"), stacklevel=2)
        return self

    def _outputs(self, X):
        return np.asarray(self.model_.predict(np.asarray(X, dtype=np.float32), verbose=0,
                                              batch_size=1024))


class KerasMLPClassifier(ClassifierMixin, KerasMLP):
    def fit(self, X, y):
        self.classes_, codes = np.unique(np.asarray(y), return_inverse=True)
        loss = "sparse_categorical_crossentropy" if self.loss == "auto" else self.loss
        return self._train(X, codes.astype(np.int32), len(self.classes_), "softmax", loss)

    def predict_proba(self, X):
        return self._outputs(X).astype(np.float64)

    def predict(self, X):
        return self.classes_[np.argmax(self._outputs(X), axis=1)]


class KerasMLPRegressor(RegressorMixin, KerasMLP):
    def fit(self, X, y):
        y = np.asarray(y, dtype=np.float32).reshape(-1, 1)
        # Standardised targets train at the same learning rate whatever the target's units.
        self.y_mean_, self.y_scale_ = float(y.mean()), float(y.std() or 1.0)
        loss = "mse" if self.loss == "auto" else self.loss
        return self._train(X, (y - self.y_mean_) / self.y_scale_, 1, None, loss)

    def predict(self, X):
        return self._outputs(X)[:, 0] * self.y_scale_ + self.y_mean_
