"""The run's plots: PNG files in the run folder, drawn outside the sandbox from the refit's
checked test predictions (pipesmith/core/plots/predictions.py) and from the report
(run.py), listed in report.json `plots` and shown in report.md. A plot that fails is a
warning in the report; it never fails the run."""

from __future__ import annotations

import threading
import time
from pathlib import Path
from typing import TYPE_CHECKING

import structlog

from pipesmith.agents.schemas import HeldOutPredictions
from pipesmith.core.plots.figure import Plot

if TYPE_CHECKING:
    from pipesmith.core.report import Report

log = structlog.get_logger(__name__)

# Every file a run may draw: removed before drawing, so a resumed run's report never lists
# or exports a plot from an earlier attempt at it.
PLOT_FILES = ("roc.png", "precision_recall.png", "confusion_matrix.png", "calibration.png",
              "residuals.png", "predicted_vs_actual.png", "clusters_pca.png",
              "score_over_time.png", "search_curve.png", "stage_times.png",
              "importance.png", "shap.png")

__all__ = ["PLOT_FILES", "Plot", "draw_plots", "preload"]


def preload() -> threading.Thread:
    """Import matplotlib and load its font in a background thread while the refit job runs
    in the sandbox (the supervisor only waits on it then): that first use is most of what
    the plots cost a run. A failure here is left for draw_plots to report."""

    def load() -> None:
        try:
            from pipesmith.core.plots.figure import figure

            fig, ax = figure()
            ax.set_title("font")
            fig.canvas.draw()
        except Exception:  # noqa: BLE001, S110 - draw_plots meets it again and warns
            pass

    thread = threading.Thread(target=load, name="plots-preload", daemon=True)
    thread.start()
    return thread


def draw_plots(out_dir: Path, report: Report, held: HeldOutPredictions | None
               ) -> tuple[list[Plot], list[str]]:
    """(the plots drawn, a warning for each that could not be)."""
    from pipesmith.core.plots.explain import explain_plots
    from pipesmith.core.plots.predictions import prediction_plots
    from pipesmith.core.plots.run import run_plots

    for name in PLOT_FILES:
        (out_dir / name).unlink(missing_ok=True)
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        log.warning("plots.skipped", reason="matplotlib is not installed")
        return [], ["no plots: matplotlib is not installed (pip install matplotlib)"]
    started = time.perf_counter()
    plots, warnings = [], []
    try:
        drawers = prediction_plots(held) + run_plots(report) + explain_plots(report)
    except Exception as exc:  # noqa: BLE001 - a plot never fails a run
        log.warning("plots.failed", error=f"{type(exc).__name__}: {exc}"[:300])
        return [], [f"no plots: {type(exc).__name__}: {str(exc)[:200]}"]
    for name, draw in drawers:
        try:
            plots.append(draw(out_dir / name))
        except Exception as exc:  # noqa: BLE001 - a plot never fails a run
            (out_dir / name).unlink(missing_ok=True)
            log.warning("plot.failed", file=name, error=f"{type(exc).__name__}: {exc}"[:300])
            warnings.append(f"plot {name} not drawn: {type(exc).__name__}: {str(exc)[:200]}")
    log.info("plots.drawn", files=[p.file for p in plots], failed=len(warnings),
             seconds=round(time.perf_counter() - started, 3))
    return plots, warnings
