"""The run's plots: drawn from small synthetic arrays (each task type), their printed
numbers checked against scikit-learn; a real run writes them and report.md links them; a
plot that fails is a warning, never a failed run."""

from __future__ import annotations

import json
import re
from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest
from PIL import Image
from sklearn.metrics import average_precision_score, r2_score, roc_auc_score

from pipesmith.agents.schemas import Attempt, HeldOutPredictions
from pipesmith.core.plots import draw_plots, predictions
from pipesmith.core.plots.figure import DPI, SIZE_IN
from pipesmith.core.plots.predictions import prediction_plots
from pipesmith.core.plots.stages import stage_seconds


def assert_png(path) -> None:
    """A whole PNG of the small size every plot has."""
    with Image.open(path) as image:
        assert image.format == "PNG"
        assert image.size == (int(SIZE_IN[0] * DPI), int(SIZE_IN[1] * DPI))
        image.load()  # decodes every row: a truncated file raises here


def draw(held: HeldOutPredictions, folder) -> dict:
    plots = {name: drawer(folder / name) for name, drawer in prediction_plots(held)}
    for name in plots:
        assert_png(folder / name)
    return plots


def probabilities(rng, y: np.ndarray, classes: np.ndarray) -> np.ndarray:
    """Noisy scores that lean towards the true class, rows summing to 1."""
    raw = rng.random((len(y), len(classes))) + 1.5 * (y[:, None] == classes[None, :])
    return raw / raw.sum(axis=1, keepdims=True)


def test_a_binary_classifier_gets_roc_pr_confusion_and_calibration(tmp_path):
    rng = np.random.default_rng(0)
    classes = np.array(["no", "yes"], dtype=object)
    y = rng.choice(classes, size=200)
    proba = probabilities(rng, y, classes)
    held = HeldOutPredictions(task_type="classification", y_true=y, pred=classes[
        proba.argmax(axis=1)], proba=proba, classes=classes)
    plots = draw(held, tmp_path)
    assert list(plots) == ["roc.png", "precision_recall.png", "confusion_matrix.png",
                           "calibration.png"]
    # one curve, for the positive class the roc_auc metric scores
    assert plots["roc.png"].values == {
        "auc yes": pytest.approx(roc_auc_score(y == "yes", proba[:, 1]))}
    assert plots["precision_recall.png"].values == {
        "average precision yes": pytest.approx(average_precision_score(y == "yes",
                                                                       proba[:, 1]))}
    assert plots["confusion_matrix.png"].values["accuracy"] == pytest.approx(
        np.mean(held.pred == y))
    assert 0.0 <= plots["calibration.png"].values["expected calibration error"] <= 1.0


def test_a_multiclass_classifier_gets_one_curve_per_class(tmp_path):
    rng = np.random.default_rng(1)
    classes = np.array([0, 1, 2])
    y = rng.choice(classes, size=150)
    proba = probabilities(rng, y, classes)
    held = HeldOutPredictions(task_type="classification", y_true=y, pred=proba.argmax(axis=1),
                              proba=proba, classes=classes)
    plots = draw(held, tmp_path)
    aucs = plots["roc.png"].values
    assert set(aucs) == {"auc 0", "auc 1", "auc 2"}
    for k in classes:  # one-vs-rest, as printed in the legend
        assert aucs[f"auc {k}"] == pytest.approx(roc_auc_score(y == k, proba[:, k]))
    # their mean is the roc_auc metric's one-vs-rest (macro) score
    assert np.mean(list(aucs.values())) == pytest.approx(
        roc_auc_score(y, proba, multi_class="ovr", labels=classes))


def test_a_classifier_without_probabilities_gets_its_confusion_matrix_only(tmp_path):
    y = np.array(["a", "b", "c", "a", "b", "c"], dtype=object)
    pred = np.array(["a", "b", "b", "a", "c", "c"])
    plots = draw(HeldOutPredictions(task_type="classification", y_true=y, pred=pred), tmp_path)
    assert list(plots) == ["confusion_matrix.png"]
    assert plots["confusion_matrix.png"].values["accuracy"] == pytest.approx(4 / 6)


def test_a_test_part_of_one_class_gets_no_roc_or_precision_recall_curve():
    classes = np.array([0, 1])
    held = HeldOutPredictions(task_type="classification", y_true=np.zeros(5, dtype=int),
                              pred=np.zeros(5, dtype=int), proba=np.full((5, 2), 0.5),
                              classes=classes)
    assert [name for name, _ in prediction_plots(held)] == ["confusion_matrix.png",
                                                             "calibration.png"]


def test_a_regressor_gets_residuals_and_predicted_vs_actual(tmp_path):
    rng = np.random.default_rng(2)
    y = rng.normal(size=300)
    pred = y + 0.3 * rng.normal(size=300)
    plots = draw(HeldOutPredictions(task_type="regression", y_true=y, pred=pred), tmp_path)
    assert list(plots) == ["residuals.png", "predicted_vs_actual.png"]
    assert plots["predicted_vs_actual.png"].values["r2"] == pytest.approx(r2_score(y, pred))
    assert plots["residuals.png"].values["mean residual"] == pytest.approx(np.mean(y - pred))


def test_a_clustering_gets_its_clusters_on_two_principal_components(tmp_path):
    rng = np.random.default_rng(3)
    features = np.vstack([rng.normal(loc, 0.3, size=(50, 4)) for loc in (0.0, 3.0)])
    labels = np.repeat([0, 1], 50)
    plots = draw(HeldOutPredictions(task_type="clustering", pred=labels, features=features),
                 tmp_path)
    ratios = plots["clusters_pca.png"].values
    assert list(plots) == ["clusters_pca.png"] and len(ratios) == 2
    assert ratios["explained variance pc1"] > 0.8  # the two blobs lie along one component


def test_stage_seconds_group_the_node_timings_and_move_the_ensembles_run():
    timings = {"profile": 0.5, "retrieve": 0.25, "plan": 0.25, "draft": 1.0, "execute": 6.0,
               "prevalidate": 2.0, "search": 4.0, "ensemble": 0.5, "outside nodes": 1.5}
    attempts = [Attempt(id="a3", parent=None, candidate="ensemble", phase="ensemble",
                        status="ok", wall_s=2.5, smoke_s=0.5)]
    seconds = stage_seconds(timings, attempts, refit_wall_s=3.0)
    assert seconds == {"profiling": 0.5, "planning": 0.5, "candidates": 6.0, "search": 4.0,
                       "ensemble": 3.5, "refit": 3.0, "other": 1.5}
    assert sum(seconds.values()) == pytest.approx(sum(timings.values()) + 3.0)


def run_report(**fields) -> SimpleNamespace:
    """What the run's plots read of a report, without a run."""
    return SimpleNamespace(**({"metric": "rmse", "attempts": [], "search": None,
                               "timings": {"profile": 0.1, "execute": 1.0}, "refit": None,
                               "baseline_score": None, "feature_importance": [],
                               "contributions": []} | fields))


def test_a_failing_plot_is_a_warning_and_the_others_are_drawn(tmp_path, monkeypatch):
    def broken(held, path):
        path.write_bytes(b"half a png")
        raise RuntimeError("no ink")

    monkeypatch.setattr(predictions, "residuals", broken)
    rng = np.random.default_rng(4)
    held = HeldOutPredictions(task_type="regression", y_true=rng.normal(size=20),
                              pred=rng.normal(size=20))
    plots, warnings = draw_plots(tmp_path, run_report(), held)
    assert [p.file for p in plots] == ["predicted_vs_actual.png", "stage_times.png"]
    assert warnings == ["plot residuals.png not drawn: RuntimeError: no ink"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["predicted_vs_actual.png",
                                                          "stage_times.png"]


def test_the_run_plots_show_the_anytime_curve_the_search_and_the_stages(tmp_path):
    attempts = [Attempt(id="a1", parent=None, candidate="ridge", phase="draft", status="ok",
                        score=0.7, wall_s=2.0, smoke_s=0.5),
                Attempt(id="a2", parent=None, candidate="knn", phase="draft", status="ok",
                        score=0.8, wall_s=3.0),
                Attempt(id="a3", parent=None, candidate="tree", phase="draft", status="ok",
                        score=0.75, wall_s=1.0)]
    report = run_report(metric="accuracy", attempts=attempts, baseline_score=0.5,
                        search={"curve": [[1.0, 0.6], [4.0, 0.78]], "seconds": 6.0})
    plots, warnings = draw_plots(tmp_path, report, None)
    assert [p.file for p in plots] == ["score_over_time.png", "search_curve.png",
                                       "stage_times.png"] and warnings == []
    for plot in plots:
        assert_png(tmp_path / plot.file)
    values = {p.file: p.values for p in plots}
    assert values["score_over_time.png"] == {"best": 0.8, "seconds": 5.5}  # a1 + a2's runs
    assert values["search_curve.png"] == {"best": 0.78, "seconds": 4.0}
    assert values["stage_times.png"]["candidates"] == 1.0  # run_report's execute node


def test_preload_imports_matplotlib_in_the_background():
    import sys

    from pipesmith.core.plots import preload

    thread = preload()
    thread.join(timeout=60)
    assert not thread.is_alive() and thread.daemon
    assert "matplotlib.backends.backend_agg" in sys.modules


def test_plots_from_an_earlier_report_are_removed_before_drawing(tmp_path):
    (tmp_path / "roc.png").write_bytes(b"stale")
    plots, warnings = draw_plots(tmp_path, run_report(), None)
    assert [p.file for p in plots] == ["stage_times.png"] and warnings == []
    assert not (tmp_path / "roc.png").exists()


@pytest.mark.slow  # the shared real run (tests/pipesmith/conftest.py)
def test_a_real_run_writes_its_plots_and_report_md_links_them(explained_run):
    from pipesmith.core import referee

    report, out = explained_run
    files = [p.file for p in report.plots]
    assert files == ["roc.png", "precision_recall.png", "confusion_matrix.png",
                     "calibration.png", "score_over_time.png", "stage_times.png",
                     "importance.png", "shap.png"]
    saved = json.loads((out / "report.json").read_text())
    assert [p["file"] for p in saved["plots"]] == files
    assert all(p["shows"] for p in saved["plots"])
    md = (out / "report.md").read_text()
    links = re.findall(r"!\[[^\]]*\]\(([^)]+)\)", md)
    assert links == files
    for link in links:  # relative to report.md, and each a whole PNG
        assert_png(out / link)
    # the AUC printed is the one of the refit's test predictions against the test labels
    test = pd.read_parquet(out / "referee" / "test.parquet")
    returned = referee.load_returned(out / "refit", len(test), 2)
    checked = referee.check_predictions(returned, len(test), "classification", "accuracy",
                                        y_train=pd.read_parquet(out / "development.parquet")
                                        ["label"])
    roc = next(p for p in report.plots if p.file == "roc.png")
    assert roc.values["auc yes"] == pytest.approx(
        roc_auc_score(test["label"] == "yes", checked["proba"][:, 1]))
    stages = next(p for p in report.plots if p.file == "stage_times.png").values
    assert stages["refit"] == report.refit.wall_s and stages["candidates"] > 0


@pytest.mark.slow  # one small real run
def test_a_plot_that_fails_in_a_real_run_is_a_warning_not_a_failed_run(tmp_path, monkeypatch):
    from pipesmith.api import run
    from pipesmith.settings import Settings
    from tests.pipesmith.conftest import signal_table

    def broken(held, path):
        raise RuntimeError("no ink")

    monkeypatch.setattr(predictions, "roc", broken)
    signal_table(n=200).to_csv(tmp_path / "signal.csv", index=False)
    settings = Settings(kb_dir=tmp_path / "kb", runs_dir=tmp_path / "runs", max_candidates=1,
                        max_repair_rounds=0, budget_s=60, cv_folds=2, n_jobs=1)
    report = run(data=tmp_path / "signal.csv", target="label", out=tmp_path / "run",
                 settings=settings)
    assert report.status == "succeeded" and report.refit.status == "ok"
    assert "plot roc.png not drawn: RuntimeError: no ink" in report.warnings
    assert "roc.png" not in [p.file for p in report.plots]
    assert not (tmp_path / "run" / "roc.png").exists()
    md = (tmp_path / "run" / "report.md").read_text()
    assert "> **warning:** plot roc.png not drawn" in md and "(roc.png)" not in md
    assert "(confusion_matrix.png)" in md  # the other plots stand


def test_importance_and_shap_are_drawn_side_by_side_when_the_report_has_them(tmp_path):
    from pipesmith.agents.schemas import FeatureContribution, FeatureImportance
    from pipesmith.core.plots.explain import explain_plots

    assert explain_plots(run_report()) == []
    report = run_report(feature_importance=[FeatureImportance(feature="a", importance=0.2),
                                            FeatureImportance(feature="b", importance=-0.01)],
                        contributions=[FeatureContribution(feature="a", mean_abs=1.5)])
    plots = {name: draw(tmp_path / name) for name, draw in explain_plots(report)}
    assert list(plots) == ["importance.png", "shap.png"]
    for name in plots:
        assert_png(tmp_path / name)
    assert plots["importance.png"].values == {"a": 0.2, "b": -0.01}
    assert plots["shap.png"].values == {"a": 1.5}
