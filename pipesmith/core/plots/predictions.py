"""Plots of the refit pipeline's predictions on the untouched test part, drawn outside the
sandbox from the arrays the referee checked (agents/executor.py: `held_out`) and the true
labels it holds: classifiers, regressors and clusterings."""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from pathlib import Path

import numpy as np

from pipesmith.agents.schemas import HeldOutPredictions
from pipesmith.core.plots.figure import MAX_CURVES, Plot, figure, sample, save

Drawer = Callable[[Path], Plot]


def prediction_plots(held: HeldOutPredictions | None) -> list[tuple[str, Drawer]]:
    """(file name, drawer) for each plot the task's predictions allow."""
    if held is None:
        return []
    if held.task_type == "clustering":
        return [("clusters_pca.png", partial(clusters_pca, held))] \
            if held.features is not None else []
    if held.task_type == "regression":
        return [("residuals.png", partial(residuals, held)),
                ("predicted_vs_actual.png", partial(predicted_vs_actual, held))]
    plots: list[tuple[str, Drawer]] = [("confusion_matrix.png", partial(confusion, held))]
    if held.proba is None:  # curves need scores; a model without predict_proba has none
        return plots
    if curve_classes(held):  # a test part holding one class has no ROC or PR curve
        plots = [("roc.png", partial(roc, held)), ("precision_recall.png", partial(pr, held)),
                 *plots]
    plots.append(("calibration.png", partial(calibration, held)))
    return plots


def _label(value) -> str:
    return str(value)[:20]


def curve_classes(held: HeldOutPredictions) -> list[int]:
    """The columns of `proba` that get a one-vs-rest curve: the positive class (the second
    of two, as the roc_auc metric scores it), else the most frequent test classes (at most
    MAX_CURVES); a class missing from the test part, or the only one there, has no curve."""
    classes, y = held.classes, held.y_true
    if len(classes) == 2:
        columns = [1]
    else:
        counts = [int(np.sum(y == c)) for c in classes]
        columns = sorted(range(len(classes)), key=lambda k: -counts[k])[:MAX_CURVES]
    return [k for k in columns if 0 < np.sum(y == classes[k]) < len(y)]


def _scope(held: HeldOutPredictions) -> str:
    if len(held.classes) == 2:
        return f"positive class {_label(held.classes[1])}"
    return "one-vs-rest per class"


def roc(held: HeldOutPredictions, path: Path) -> Plot:
    from sklearn.metrics import roc_auc_score, roc_curve

    fig, ax = figure()
    values = {}
    for k in curve_classes(held):
        positive = held.y_true == held.classes[k]
        fpr, tpr, _ = roc_curve(positive, held.proba[:, k])
        auc = float(roc_auc_score(positive, held.proba[:, k]))
        values[f"auc {held.classes[k]}"] = auc
        ax.plot(fpr, tpr, label=f"{_label(held.classes[k])} (AUC {auc:.3f})")
    ax.plot([0, 1], [0, 1], ls=":", c="grey", lw=1)
    ax.set(xlabel="false positive rate", ylabel="true positive rate",
           title="ROC, test part")
    ax.legend(fontsize="small", loc="lower right")
    save(fig, path)
    return Plot(file=path.name, shows=f"ROC curves on the test part ({_scope(held)}), AUC "
                "in the legend", values=values)


def pr(held: HeldOutPredictions, path: Path) -> Plot:
    from sklearn.metrics import average_precision_score, precision_recall_curve

    fig, ax = figure()
    values = {}
    for k in curve_classes(held):
        positive = held.y_true == held.classes[k]
        precision, recall, _ = precision_recall_curve(positive, held.proba[:, k])
        ap = float(average_precision_score(positive, held.proba[:, k]))
        values[f"average precision {held.classes[k]}"] = ap
        ax.plot(recall, precision, drawstyle="steps-post",
                label=f"{_label(held.classes[k])} (AP {ap:.3f})")
    ax.set(xlabel="recall", ylabel="precision", ylim=(0, 1.02),
           title="Precision-recall, test part")
    ax.legend(fontsize="small", loc="lower left")
    save(fig, path)
    return Plot(file=path.name, shows=f"precision-recall curves on the test part "
                f"({_scope(held)}), average precision in the legend", values=values)


def confusion(held: HeldOutPredictions, path: Path) -> Plot:
    from sklearn.metrics import confusion_matrix

    y, pred = held.y_true, held.pred
    labels = list(held.classes) if held.classes is not None else \
        sorted(set(y.tolist()) | set(pred.tolist()), key=str)
    matrix = confusion_matrix(y, pred, labels=labels)
    width = max(len(_label(c)) for c in labels) if len(labels) <= 30 else 0
    fig, ax = figure(left=min(0.4, 0.1 + 0.015 * width), bottom=min(0.4, 0.12 + 0.012 * width))
    ax.imshow(matrix, cmap="Blues")
    if len(labels) <= 12:  # beyond that the counts would not be legible
        for (i, j), count in np.ndenumerate(matrix):
            ax.text(j, i, str(count), ha="center", va="center", fontsize="small",
                    color="white" if count > matrix.max() / 2 else "black")
    if len(labels) <= 30:
        ticks = range(len(labels))
        ax.set_xticks(ticks, [_label(c) for c in labels], rotation=45, ha="right",
                      fontsize="small")
        ax.set_yticks(ticks, [_label(c) for c in labels], fontsize="small")
    ax.set(xlabel="predicted", ylabel="true", title="Confusion matrix, test part")
    save(fig, path)
    return Plot(file=path.name, shows="confusion matrix of the test part (rows: true "
                "class, columns: predicted)",
                values={"accuracy": float(np.trace(matrix) / max(matrix.sum(), 1))})


CALIBRATION_BINS = 10


def calibration(held: HeldOutPredictions, path: Path) -> Plot:
    """Binary: the positive class's probability against its observed share. Multiclass:
    the top class's probability against how often that class is right."""
    if len(held.classes) == 2:
        confidence = held.proba[:, 1]
        hit = held.y_true == held.classes[1]
        what = f"P({_label(held.classes[1])})"
    else:
        confidence = held.proba.max(axis=1)
        hit = held.classes[held.proba.argmax(axis=1)] == held.y_true
        what = "top-class probability"
    bins = np.minimum((confidence * CALIBRATION_BINS).astype(int), CALIBRATION_BINS - 1)
    used = [b for b in range(CALIBRATION_BINS) if np.any(bins == b)]
    mean_p = np.array([confidence[bins == b].mean() for b in used])
    share = np.array([hit[bins == b].mean() for b in used])
    counts = np.array([np.sum(bins == b) for b in used])
    ece = float(np.sum(counts * np.abs(share - mean_p)) / len(confidence))
    fig, ax = figure()
    ax.plot([0, 1], [0, 1], ls=":", c="grey", lw=1, label="perfectly calibrated")
    ax.plot(mean_p, share, marker="o", label=f"model (ECE {ece:.3f})")
    ax.set(xlabel=f"mean predicted {what}", ylabel="observed share",
           xlim=(-0.02, 1.02), ylim=(-0.02, 1.02), title="Calibration, test part")
    ax.legend(fontsize="small", loc="upper left")
    save(fig, path)
    return Plot(file=path.name, shows=f"reliability curve on the test part ({what}, "
                f"{CALIBRATION_BINS} equal-width bins), expected calibration error in the "
                "legend", values={"expected calibration error": ece})


def _regression(held: HeldOutPredictions) -> tuple[np.ndarray, np.ndarray]:
    rows = sample(len(held.pred))
    return held.y_true.astype(float)[rows], held.pred.astype(float)[rows]


def residuals(held: HeldOutPredictions, path: Path) -> Plot:
    y, pred = _regression(held)
    fig, ax = figure()
    ax.scatter(pred, y - pred, s=8, alpha=0.5)
    ax.axhline(0.0, ls=":", c="grey", lw=1)
    ax.set(xlabel="predicted", ylabel="residual (actual − predicted)",
           title="Residuals, test part")
    save(fig, path)
    return Plot(file=path.name, shows="residuals against predictions on the test part",
                values={"mean residual": float(np.mean(held.y_true.astype(float)
                                                       - held.pred.astype(float)))})


def predicted_vs_actual(held: HeldOutPredictions, path: Path) -> Plot:
    from sklearn.metrics import r2_score

    y, pred = _regression(held)
    r2 = float(r2_score(held.y_true.astype(float), held.pred.astype(float)))
    fig, ax = figure()
    ax.scatter(y, pred, s=8, alpha=0.5, label=f"test rows (R² {r2:.3f})")
    low, high = float(min(y.min(), pred.min())), float(max(y.max(), pred.max()))
    ax.plot([low, high], [low, high], ls=":", c="grey", lw=1, label="predicted = actual")
    ax.set(xlabel="actual", ylabel="predicted", title="Predicted vs actual, test part")
    ax.legend(fontsize="small", loc="upper left")
    save(fig, path)
    return Plot(file=path.name, shows="predicted against actual values on the test part, "
                "R² in the legend", values={"r2": r2})


def clusters_pca(held: HeldOutPredictions, path: Path) -> Plot:
    from sklearn.decomposition import PCA

    features = held.features
    components = min(2, features.shape[1], features.shape[0])
    pca = PCA(n_components=components, random_state=0).fit(features)
    points = pca.transform(features)
    if components < 2:  # one feature: spread along one axis
        points = np.column_stack([points[:, 0], np.zeros(len(points))])
    rows = sample(len(points))
    labels = held.pred[rows]
    fig, ax = figure()
    clusters = sorted(set(labels.tolist()), key=str)
    for k, cluster in enumerate(clusters):
        at = labels == cluster
        ax.scatter(points[rows][at, 0], points[rows][at, 1], s=8, alpha=0.6,
                   color=f"C{k % 10}", label=_label(cluster) if len(clusters) <= 10 else None)
    if len(clusters) <= 10:
        ax.legend(fontsize="small", title="cluster", loc="best")
    ratio = [float(r) for r in pca.explained_variance_ratio_]
    ax.set(xlabel=f"PC1 ({100 * ratio[0]:.0f}% of variance)",
           ylabel=f"PC2 ({100 * ratio[1]:.0f}% of variance)" if len(ratio) > 1 else "",
           title="Clusters on the test part (PCA)")
    save(fig, path)
    return Plot(file=path.name, shows="the test rows projected on their first two principal "
                "components (the referee's standardised view of the features), coloured by "
                "cluster", values={f"explained variance pc{k + 1}": r
                                   for k, r in enumerate(ratio)})
