"""A PyTorch multilayer perceptron behind a scikit-learn face (torch imported lazily).

This file is also the hand-written training loop the `float64_inputs` fault operator copies
into a candidate (agents/coder/faults.py): keep it self-contained, imports at the top.
"""

import warnings

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin, RegressorMixin
from sklearn.exceptions import ConvergenceWarning

SMALL_WORK = 1 << 17  # widest layer x batch size below which training uses one thread


class TorchMLP(BaseEstimator):
    """A PyTorch multilayer perceptron behind a scikit-learn face.

    fit() holds the whole training loop: float32 tensors, seeded and shuffled
    mini-batches, AdamW, optional gradient clipping, early stopping on a held-out
    validation split (the best weights are kept) and the device chosen automatically
    (CUDA when present). loss="auto" picks the loss that suits the task.
    """

    def __init__(self, hidden=(64, 32), learning_rate=0.001, batch_size=64, epochs=60,
                 patience=8, validation_fraction=0.15, weight_decay=0.0001, dropout=0.0,
                 clip_norm=None, loss="auto", input_width=None, device="auto", n_jobs=1,
                 random_state=0):
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
        self.device = device
        self.n_jobs = n_jobs
        self.random_state = random_state

    def _device(self):
        import torch

        if self.device != "auto":
            return torch.device(self.device)
        return torch.device("cuda" if torch.cuda.is_available() else "cpu")

    def _network(self, n_inputs, n_outputs):
        import torch

        layers, width = [], self.input_width or n_inputs
        for units in self.hidden:
            layers += [torch.nn.Linear(width, units), torch.nn.ReLU()]
            if self.dropout:
                layers.append(torch.nn.Dropout(self.dropout))
            width = units
        layers.append(torch.nn.Linear(width, n_outputs))
        return torch.nn.Sequential(*layers)

    def _criterion(self, name):
        import torch

        losses = {"cross_entropy": torch.nn.CrossEntropyLoss, "bce": torch.nn.BCEWithLogitsLoss,
                  "mse": torch.nn.MSELoss, "huber": torch.nn.HuberLoss}
        return losses[name]()

    def _train(self, X, targets, n_outputs, loss_name):
        import torch

        torch.manual_seed(self.random_state)
        # Small layers and batches run fastest on one thread; more only oversubscribe the CPU.
        big = max(self.hidden, default=0) * self.batch_size >= SMALL_WORK
        torch.set_num_threads(max(1, min(int(self.n_jobs or 1), 4)) if big else 1)
        device = self._device()
        X = torch.as_tensor(np.asarray(X, dtype=np.float32), device=device)
        y = torch.as_tensor(targets, device=device)
        order = np.random.default_rng(self.random_state).permutation(len(X))
        n_val = int(len(X) * self.validation_fraction) if len(X) >= 50 else 0
        val = torch.as_tensor(order[:n_val], device=device)
        train = torch.as_tensor(order[n_val:], device=device)
        self.n_features_in_ = X.shape[1]
        self.network_ = self._network(X.shape[1], n_outputs).to(device)
        criterion = self._criterion(loss_name)
        optimiser = torch.optim.AdamW(self.network_.parameters(), lr=self.learning_rate,
                                      weight_decay=self.weight_decay)
        generator = torch.Generator().manual_seed(self.random_state)
        best, best_state, waited = float("inf"), None, 0
        self.loss_curve_, self.validation_loss_ = [], []
        for epoch in range(self.epochs):
            self.network_.train()
            total = 0.0
            for batch in torch.randperm(len(train), generator=generator).split(self.batch_size):
                index = train[batch.to(device)]
                optimiser.zero_grad()
                loss = criterion(self.network_(X[index]), y[index])
                if not torch.isfinite(loss):
                    raise FloatingPointError(
                        f"loss is {loss.item()} at epoch {epoch + 1}: training diverged")
                loss.backward()
                if self.clip_norm:
                    torch.nn.utils.clip_grad_norm_(self.network_.parameters(), self.clip_norm)
                optimiser.step()
                total += loss.item() * len(index)
            self.loss_curve_.append(total / len(train))
            monitored = self.loss_curve_[-1]
            if n_val:
                self.network_.eval()
                with torch.no_grad():
                    monitored = criterion(self.network_(X[val]), y[val]).item()
                self.validation_loss_.append(monitored)
            if monitored < best - 1e-4:
                best, waited = monitored, 0
                best_state = {k: v.detach().clone() for k, v in self.network_.state_dict().items()}
            else:
                waited += 1
                if waited >= self.patience:
                    break
        else:  # early stopping never said it had converged
            warnings.warn(ConvergenceWarning(
                f"stopped by the epoch limit ({self.epochs}), not by early stopping"), stacklevel=2)
        self.n_epochs_ = epoch + 1
        if best_state is not None:
            self.network_.load_state_dict(best_state)
        return self

    def _outputs(self, X):
        import torch

        parameter = next(self.network_.parameters())
        X = torch.as_tensor(np.asarray(X, dtype=np.float32), device=parameter.device)
        self.network_.eval()
        with torch.no_grad():
            return self.network_(X).cpu().numpy()

    def __getstate__(self):  # pickle the weights on the CPU, wherever they were trained
        state = dict(self.__dict__)
        if "network_" in state:
            state["network_"] = state["network_"].to("cpu")
        return state


class TorchMLPClassifier(ClassifierMixin, TorchMLP):
    def fit(self, X, y):
        self.classes_, codes = np.unique(np.asarray(y), return_inverse=True)
        loss = "cross_entropy" if self.loss == "auto" else self.loss
        return self._train(X, codes.astype(np.int64), len(self.classes_), loss)

    def predict_proba(self, X):
        logits = self._outputs(X)
        logits = logits - logits.max(axis=1, keepdims=True)
        exp = np.exp(logits)
        return exp / exp.sum(axis=1, keepdims=True)

    def predict(self, X):
        return self.classes_[np.argmax(self._outputs(X), axis=1)]


class TorchMLPRegressor(RegressorMixin, TorchMLP):
    def fit(self, X, y):
        y = np.asarray(y, dtype=np.float32).reshape(-1, 1)
        # Standardised targets train at the same learning rate whatever the target's units.
        self.y_mean_, self.y_scale_ = float(y.mean()), float(y.std() or 1.0)
        loss = "mse" if self.loss == "auto" else self.loss
        return self._train(X, (y - self.y_mean_) / self.y_scale_, 1, loss)

    def predict(self, X):
        return self._outputs(X)[:, 0] * self.y_scale_ + self.y_mean_
