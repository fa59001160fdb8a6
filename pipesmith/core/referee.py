"""The referee: project code, outside every sandbox, that splits, writes fold files,
validates what a candidate predicted, and scores it.

Protocol (docs/architecture.md, "The referee"):
- `split_development` splits the prepared table once per run (seed) into a development part
  and a test part (stratified for classification). The test part is kept in the run
  folder's `referee/` directory, which no sandbox job binds and no agent reads.
- `choose_folds` picks K from the rows and the budget; `fold_plan` gives each fold's rows.
- `write_fold` writes `train.parquet` (features + target of the fold's training rows) and
  `predict.parquet` (features only) into a job's workdir: the only data a job can read.
- `check_predictions` turns what a job returned into checked arrays or a `ContractViolation`
  the taxonomy understands; `score` and `baseline` score them with the task metric.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from pipesmith.core.metrics import get_metric
from pipesmith.core.safe_npz import load_npz
from pipesmith.errors import InputError

DEFAULT_FOLDS = 5
HOLDOUT_ROWS = 100_000  # from this many development rows on, one holdout fold
SMALL_ROWS = 300  # fewer folds below this many rows ...
SMALL_BUDGET_S = 60.0  # ... or below this budget
TINY_BUDGET_S = 20.0
HOLDOUT_SHARE = 0.2
PROBA_TOLERANCE = 1e-3
CLUSTER_SAMPLE = 5000
TEST_FOLDER = "referee"
TEST_FILE = "test.parquet"
DEV_FILE = "development.parquet"
SPLIT_FILE = "split.npz"
ROW_BYTES = 1024  # predictions.npz: bytes a row may take besides its probabilities
UNSIZED_LIMIT = 256 << 20  # predictions.npz when the caller gives no row count


class ContractViolation(Exception):
    """What a candidate returned breaks the prediction contract (wrong count, NaN, ...)."""


@dataclass(frozen=True)
class Fold:
    train: np.ndarray  # positions in the development part
    predict: np.ndarray


def split_development(frame: pd.DataFrame, target: str | None, task_type: str, seed: int,
                      test_size: float) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The development and test parts; InputError when the table cannot be split."""
    dev, test = split_positions(frame, target, task_type, seed, test_size)
    return (frame.iloc[dev].reset_index(drop=True), frame.iloc[test].reset_index(drop=True))


def split_positions(frame: pd.DataFrame, target: str | None, task_type: str, seed: int,
                    test_size: float) -> tuple[np.ndarray, np.ndarray]:
    """The row positions of the development and test parts in `frame`."""
    from sklearn.model_selection import train_test_split

    if not 0.0 < test_size < 1.0:
        raise InputError("--test-size must be between 0 and 1 (exclusive)")
    n_test = math.ceil(test_size * len(frame))
    if n_test < 1 or len(frame) - n_test < 2:
        raise InputError(f"{len(frame)} rows are too few to keep {test_size:.0%} as a test part")
    stratify = None
    if task_type == "classification":
        counts = frame[target].value_counts()
        if counts.min() < 2:
            label = counts.idxmin()
            label = label.item() if hasattr(label, "item") else label
            raise InputError(f"class {label!r} of {target!r} has {counts.min()} row; every class "
                             "needs at least 2 to split off a test part")
        if n_test < len(counts) or len(frame) - n_test < len(counts):
            raise InputError(f"a test part of {n_test} rows cannot hold all {len(counts)} "
                             "classes; use a larger --test-size or more rows")
        stratify = stratify_codes(frame[target].to_numpy())
    return train_test_split(np.arange(len(frame)), test_size=n_test, random_state=seed,
                            stratify=stratify)


def stratify_codes(labels: np.ndarray) -> np.ndarray:
    """Text labels as codes in their sorted order: the very split the labels give, without
    scikit-learn sorting every text label twice (8 s for 1,000,000 under load)."""
    if labels.dtype != object:
        return labels
    return pd.Categorical(labels, categories=true_classes(labels)).codes


def save_split(out: Path, frame: pd.DataFrame, dev_rows: np.ndarray,
               test_rows: np.ndarray) -> tuple[Path, Path]:
    """The development part beside the table; the test part, and which rows of the table
    each part holds (split.npz: `dev`, `test`), in referee/, which no job binds."""
    (out / TEST_FOLDER).mkdir(parents=True, exist_ok=True)
    dev_path, test_path = out / DEV_FILE, out / TEST_FOLDER / TEST_FILE
    frame.iloc[dev_rows].reset_index(drop=True).to_parquet(dev_path, index=False)
    frame.iloc[test_rows].reset_index(drop=True).to_parquet(test_path, index=False)
    np.savez(out / TEST_FOLDER / SPLIT_FILE, dev=dev_rows, test=test_rows)
    return dev_path.resolve(), test_path.resolve()


def load_split(run_dir: Path) -> dict[str, np.ndarray]:
    """Which rows of the run's data.parquet went to the development and the test part."""
    with np.load(Path(run_dir) / TEST_FOLDER / SPLIT_FILE) as data:
        return {"dev": data["dev"], "test": data["test"]}


def choose_folds(n_rows: int, budget_s: float, requested: int = DEFAULT_FOLDS,
                 min_class: int | None = None) -> int:
    """K for cross-validation, a pure function of the rows and the budget: `requested`
    (default 5), 3 for small data or budgets, 2 for tiny budgets, 1 (a holdout fold) for
    very large data; never more than the smallest class has rows."""
    if n_rows >= HOLDOUT_ROWS or requested <= 1:
        return 1
    k = requested
    if n_rows < SMALL_ROWS or budget_s < SMALL_BUDGET_S:
        k = min(k, 3)
    if budget_s < TINY_BUDGET_S:
        k = min(k, 2)
    if min_class is not None:
        k = min(k, max(min_class, 1))
    return k if k >= 2 else 1


def fold_rounds(n_folds: int, workers: int) -> int:
    """Rounds of fits that `n_folds` folds take on `workers` workers: a candidate's run time
    is about this many of its fits (five folds: 3 rounds on two workers, 5 on one)."""
    return -(-n_folds // max(1, workers))


def folds_within(k: int, time_left_s: float, fold_wall_s, refit_s: float,
                 workers: int) -> int:
    """The most folds, from `k` down to 2, whose cross-validation (`fold_wall_s(folds)`
    seconds a job, `workers` at a time) and refit fit in `time_left_s`: the first candidate
    of a slow task must leave a model inside the budget. 2 when none fits."""
    if k <= 2:
        return k
    for folds in range(k, 2, -1):
        if fold_rounds(folds, workers) * fold_wall_s(folds) + refit_s <= time_left_s:
            return folds
    return 2


def fold_plan(dev: pd.DataFrame, target: str | None, task_type: str, k: int,
              seed: int) -> list[Fold]:
    """Each fold's training and prediction rows. Clustering: one job on every row."""
    from sklearn.model_selection import KFold, StratifiedKFold, train_test_split

    positions = np.arange(len(dev))
    if task_type == "clustering":
        return [Fold(positions, positions)]
    y = dev[target].to_numpy()
    stratify = task_type == "classification" and pd.Series(y).value_counts().min() >= 2
    if k <= 1:
        train, held = train_test_split(positions, test_size=HOLDOUT_SHARE, random_state=seed,
                                       stratify=y if stratify else None)
        return [Fold(np.sort(train), np.sort(held))]
    splitter = StratifiedKFold(k, shuffle=True, random_state=seed) if stratify else \
        KFold(k, shuffle=True, random_state=seed)
    return [Fold(train, held) for train, held in splitter.split(positions, y)]


def write_fold(workdir: Path, dev: pd.DataFrame, target: str | None, fold: Fold,
               task_type: str, permute_seed: int | None = None) -> None:
    """train.parquet (features + target) and predict.parquet (features only, no target).
    Clustering: train.parquet holds the features only (a target column, when the table
    names one, is what an external index would be judged by). With `permute_seed`, the
    training labels are shuffled (the permutation control, pipesmith/core/permutation.py)."""
    from pipesmith.core.permutation import shuffle_labels

    workdir.mkdir(parents=True, exist_ok=True)
    train = dev.iloc[fold.train]
    if permute_seed is not None:
        train = train.assign(**{target: shuffle_labels(train[target], permute_seed)})
    without_target(train, target, task_type).to_parquet(workdir / "train.parquet", index=False)
    if task_type != "clustering":
        dev.iloc[fold.predict].drop(columns=[target]).to_parquet(
            workdir / "predict.parquet", index=False)


def without_target(frame: pd.DataFrame, target: str | None, task_type: str) -> pd.DataFrame:
    """`frame` as a clustering job may see it: never with the target column."""
    if task_type == "clustering" and target and target in frame:
        return frame.drop(columns=[target])
    return frame


def write_refit(workdir: Path, dev: pd.DataFrame, test: pd.DataFrame, target: str | None,
                task_type: str) -> None:
    """The refit job: every development row to train on, the test features to predict."""
    workdir.mkdir(parents=True, exist_ok=True)
    without_target(dev, target, task_type).to_parquet(workdir / "train.parquet", index=False)
    features = test.drop(columns=[target]) if target and target in test else test
    features.to_parquet(workdir / "predict.parquet", index=False)


def returned_limit(n_rows: int, n_classes: int = 0) -> int:
    """The most bytes a job's predictions.npz may hold, or inflate to, for `n_rows` rows
    (a label of up to 256 characters and a probability per class a row, plus 1 MiB)."""
    return (1 << 20) + n_rows * (ROW_BYTES + 8 * n_classes)


GAP_STDS = 3.0  # a test score this many CV standard deviations ...
GAP_EDGE = 0.25  # ... plus this share of the CV's edge over the dummy below the CV mean


def score_gap_warning(metric: str, cv_mean: float | None, cv_std: float | None,
                      cv_baseline: float | None, test: float | None) -> str | None:
    """A warning when the test score falls far below the CV interval: the pipeline did on
    unseen rows much worse than its folds said, as a pipeline that memorises rows it
    should not see does (an honest one loses a little on a small test part, not this)."""
    if None in (cv_mean, test, cv_baseline):
        return None
    sign = 1.0 if get_metric(metric).greater_is_better else -1.0
    edge = max(0.0, sign * (cv_mean - cv_baseline))
    allowed = GAP_STDS * (cv_std or 0.0) + GAP_EDGE * edge
    if sign * (cv_mean - test) <= allowed:
        return None
    return (f"the test score {test:.4f} is far below the CV score {cv_mean:.4f} ± "
            f"{cv_std or 0.0:.4f} (more than {allowed:.4f} off): the folds' score is not "
            "to be trusted; look for rows the pipeline could memorise or a leak")


def load_returned(workdir: Path, n_rows: int | None = None, n_classes: int = 0) -> dict:
    """The arrays a job wrote to predictions.npz; a ContractViolation if there are none or
    the file breaks its caps (a symlink, a FIFO, a decompression bomb): sizes are checked
    before anything is read or inflated (pipesmith/core/safe_npz.py)."""
    path = workdir / "predictions.npz"
    if not path.exists() and not path.is_symlink():
        raise ContractViolation("the job exited 0 without writing predictions.npz")
    limit = returned_limit(n_rows, n_classes) if n_rows is not None else UNSIZED_LIMIT
    try:
        return load_npz(path, limit)
    except Exception as exc:  # a file the candidate overwrote with something else
        raise ContractViolation(f"predictions.npz cannot be read: {exc}") from None


def true_classes(y_train) -> np.ndarray:
    """The class set and order the referee scores with: the sorted training labels.
    Hashed before sorted: np.unique alone sorts every label (0.9 s for 800,000 text
    labels, several times a refit); the sort then sees only the distinct ones."""
    labels = np.asarray(y_train)
    return np.unique(pd.unique(labels.ravel()) if labels.dtype == object else labels)


def align_classes(proba: np.ndarray, returned: np.ndarray, classes: np.ndarray) -> np.ndarray:
    """`proba`'s columns in the order of the true `classes`; ContractViolation unless the
    returned classes are the true ones in some order (compared as text: savez turns object
    labels into strings)."""
    names = [str(c) for c in returned.tolist()]
    truth = [str(c) for c in classes.tolist()]
    if len(set(names)) != len(names) or sorted(names) != sorted(truth):
        raise ContractViolation(f"predict_proba classes {names[:10]} are not the training "
                                f"classes {truth[:10]}")
    order = [names.index(name) for name in truth]
    return proba[:, order]


def check_predictions(returned: dict, n_rows: int, task_type: str, metric_name: str,
                      y_train=None) -> dict:
    """Checked arrays {pred, proba, classes}; ContractViolation with the diagnosis text.
    With `y_train`, the classes are the referee's (the sorted training labels) and `proba`'s
    columns are put in their order; the returned `classes` are only a column map."""
    if "pred" not in returned:
        raise ContractViolation("predictions.npz holds no `pred` array")
    pred = np.asarray(returned["pred"])
    if pred.ndim == 2 and pred.shape[1] == 1:
        pred = pred.ravel()
    if pred.ndim != 1 or pred.shape[0] != n_rows:
        raise ContractViolation(f"predict returned {pred.shape[0] if pred.ndim else 0} rows "
                                f"for {n_rows} inputs")
    if task_type == "regression":
        try:
            pred = pred.astype(float)
        except (TypeError, ValueError):
            raise ContractViolation("regression predictions are not numbers") from None
    if pred.dtype.kind in "fc" and not np.all(np.isfinite(pred)):
        raise ContractViolation("predictions contain NaN or infinity")
    checked = {"pred": pred}
    if task_type == "classification" and "proba" in returned:
        proba = np.asarray(returned["proba"], dtype=float)
        classes = np.asarray(returned.get("classes", []))
        if proba.ndim != 2 or proba.shape != (n_rows, len(classes)):
            raise ContractViolation(f"predict_proba returned shape {proba.shape} for {n_rows} "
                                    f"rows and {len(classes)} classes")
        if y_train is not None:
            known = true_classes(y_train)
            proba, classes = align_classes(proba, classes, known), known
        if not np.all(np.isfinite(proba)):
            raise ContractViolation("predict_proba returned NaN or infinity")
        sums = proba.sum(axis=1)
        bad = np.flatnonzero(np.abs(sums - 1.0) > PROBA_TOLERANCE)
        if bad.size:
            raise ContractViolation(f"predict_proba rows do not sum to 1 (row {bad[0]} sums "
                                    f"to {sums[bad[0]]:.4f})")
        checked |= {"proba": proba, "classes": classes}
    if get_metric(metric_name).needs == "proba" and "proba" not in checked:
        raise ContractViolation(f"metric {metric_name} needs predict_proba, which the model "
                                "lacks")
    return checked


def score(metric_name: str, y_true, checked: dict) -> float:
    """The metric on checked predictions; anything scoring raises is the candidate's
    ContractViolation (its predictions could not be scored), never a crash of the run."""
    y_true, pred, classes = _coded(np.asarray(y_true), checked["pred"], checked.get("classes"))
    try:
        return float(get_metric(metric_name).score(
            y_true, pred, proba=checked.get("proba"), classes=classes))
    except Exception as exc:
        raise ContractViolation(f"the predictions could not be scored: "
                                f"{type(exc).__name__}: {str(exc)[:300]}") from None


def _coded(y_true: np.ndarray, pred: np.ndarray, classes: np.ndarray | None):
    """Text labels as integer codes (the classes first, in their order, then any other
    predicted label): the same scores, without scikit-learn sorting every text label
    several times per metric (2.5 s for 200,000 test rows)."""
    if y_true.dtype.kind not in "OU" or pred.dtype.kind not in "OU":
        return y_true, pred, classes
    known = list(classes) if classes is not None else []
    seen = set(known)
    index = pd.Index(known + [v for v in pd.unique(np.concatenate([y_true.astype(object),
                                                                    pred.astype(object)]))
                              if v not in seen], dtype=object)
    if not index.is_unique:
        return y_true, pred, classes
    return (index.get_indexer(y_true), index.get_indexer(pred),
            np.arange(len(known)) if classes is not None else None)


def baseline(metric_name: str, y_train, y_true) -> float:
    """The dummy baseline on the same rows: class priors (most frequent label) for
    classifiers, the training mean for regressors."""
    y_train, y_true = np.asarray(y_train), np.asarray(y_true)
    metric = get_metric(metric_name)
    if metric.task_type == "classification":
        classes = true_classes(y_train)
        counts = pd.Series(y_train).value_counts().reindex(classes).to_numpy()
        prior = counts / counts.sum()
        pred = np.full(len(y_true), classes[counts.argmax()], dtype=classes.dtype)
        proba = np.tile(prior, (len(y_true), 1))
        y_true, pred, coded = _coded(y_true, pred, classes)
        return float(metric.score(y_true, pred, proba=proba, classes=coded))
    return float(metric.score(y_true, np.full(len(y_true), float(np.mean(y_train)))))


def cluster_features(features: pd.DataFrame) -> np.ndarray:
    """The referee's own view of the rows for internal cluster indices: numeric columns
    (median-imputed, standardised), other columns as ordinal codes, standardised."""
    columns = []
    for name in features.columns:
        column = features[name]
        values = column.to_numpy(dtype=float, na_value=np.nan) \
            if pd.api.types.is_numeric_dtype(column) else \
            pd.Series(pd.factorize(column.astype(str))[0], dtype=float).to_numpy()
        values = np.where(np.isfinite(values), values, np.nanmedian(values)
                          if np.isfinite(values).any() else 0.0)
        std = values.std()
        columns.append((values - values.mean()) / std if std > 0 else values * 0.0)
    return np.column_stack(columns) if columns else np.zeros((len(features), 1))


def cluster_scores(metric_name: str, features: pd.DataFrame, labels: np.ndarray,
                   seed: int) -> tuple[float, float]:
    """The internal index of the labels and of random labels with as many clusters, on a
    seeded sample of at most 5,000 rows, computed here on the referee's features."""
    labels = np.asarray(labels)
    rng = np.random.default_rng(seed)
    sample = rng.choice(len(labels), size=min(len(labels), CLUSTER_SAMPLE), replace=False)
    matrix = cluster_features(features)[sample]
    n_clusters = max(2, len(set(labels.tolist())))
    random_labels = rng.integers(0, n_clusters, size=len(sample))
    metric = get_metric(metric_name)
    try:
        candidate = float(metric.score(None, labels[sample], features=matrix))
    except Exception as exc:
        raise ContractViolation(f"the predictions could not be scored: "
                                f"{type(exc).__name__}: {str(exc)[:300]}") from None
    return candidate, float(metric.score(None, random_labels, features=matrix))
