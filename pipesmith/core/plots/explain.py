"""The explanation plots, from the report: permutation importance and SHAP contributions
side by side in the run folder (both computed by the referee outside the sandbox)."""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING

from pipesmith.core.plots.figure import Plot, figure, save

if TYPE_CHECKING:
    from pipesmith.core.report import Report

Drawer = Callable[[Path], Plot]
BARS = 15  # the largest ones; report.json holds them all


def explain_plots(report: Report) -> list[tuple[str, Drawer]]:
    plots: list[tuple[str, Drawer]] = []
    if report.feature_importance:
        plots.append(("importance.png", partial(importance, report)))
    if report.contributions:
        plots.append(("shap.png", partial(shap, report)))
    return plots


def _bars(names: list[str], values: list[float], xlabel: str, title: str, path: Path) -> None:
    names, values = names[:BARS][::-1], values[:BARS][::-1]  # the largest at the top
    fig, ax = figure(left=0.3)
    ax.barh([n[:28] for n in names], values)
    ax.axvline(0, c="grey", lw=0.8)
    ax.set(xlabel=xlabel, title=title)
    save(fig, path)


def importance(report: Report, path: Path) -> Plot:
    ranked = report.feature_importance
    _bars([f.feature for f in ranked], [f.importance for f in ranked],
          f"{report.metric} drop when shuffled", "Permutation importance (test part)", path)
    return Plot(file=path.name, shows=f"permutation importance on the test part: the "
                f"{report.metric} drop when a feature is shuffled, the top {BARS}",
                values={f.feature: f.importance for f in ranked[:BARS]})


def shap(report: Report, path: Path) -> Plot:
    ranked = report.contributions
    _bars([c.feature for c in ranked], [c.mean_abs for c in ranked],
          "mean |SHAP contribution| (raw margin)", "SHAP contributions (test part)", path)
    return Plot(file=path.name, shows=f"mean absolute SHAP contribution per input feature on "
                f"the test part (the model's raw margin), the top {BARS}",
                values={c.feature: c.mean_abs for c in ranked[:BARS]})
