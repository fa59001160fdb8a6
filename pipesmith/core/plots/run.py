"""Plots of the run itself, from the report: the score over time and the time per stage."""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING

from pipesmith.core.plots.figure import Plot, figure, save
from pipesmith.core.plots.stages import stage_seconds

if TYPE_CHECKING:
    from pipesmith.core.report import Report

Drawer = Callable[[Path], Plot]


def run_plots(report: Report) -> list[tuple[str, Drawer]]:
    from pipesmith.core.report import score_curve

    plots: list[tuple[str, Drawer]] = []
    if score_curve(report):
        plots.append(("score_over_time.png", partial(anytime, report)))
    if (report.search or {}).get("curve"):
        plots.append(("search_curve.png", partial(search_curve, report)))
    plots.append(("stage_times.png", partial(stage_times, report)))
    return plots


def _steps(ax, points: list, metric: str, label: str, end: float | None = None) -> None:
    """The best score so far as steps, a marker at each improvement, held to `end`."""
    times = [t for t, _ in points]
    scores = [s for _, s in points]
    held = [max(end, times[-1])] if end is not None else []
    (line,) = ax.step(times + held, scores + scores[-1:] * len(held), where="post",
                      label=label)
    ax.plot(times, scores, "o", color=line.get_color())
    ax.set(ylabel=f"best CV {metric}")
    ax.set_xlim(left=0)


def anytime(report: Report, path: Path) -> Plot:
    from pipesmith.core.report import score_curve

    points = score_curve(report)
    # held to the end of the last sandboxed run, counted as score_curve counts (no
    # improvement after the last point is still time the run spent)
    end = sum(a.smoke_s + a.wall_s for a in report.attempts) + \
        (report.search or {}).get("seconds", 0.0)
    fig, ax = figure()
    _steps(ax, points, report.metric, "best candidate so far", end)
    if report.baseline_score is not None:
        ax.axhline(report.baseline_score, ls=":", c="grey", lw=1, label="dummy baseline")
    ax.set(xlabel="seconds in sandboxed runs", title="Best score over the run")
    ax.legend(fontsize="small", loc="best")
    save(fig, path)
    return Plot(file=path.name, shows=f"the best CV {report.metric} after each candidate run "
                "against the sandbox seconds spent (the run's anytime curve)",
                values={"best": points[-1][1], "seconds": points[-1][0]})


def search_curve(report: Report, path: Path) -> Plot:
    search = report.search or {}
    points = [tuple(p) for p in search["curve"]]
    fig, ax = figure()
    _steps(ax, points, report.metric, "best trial so far", search.get("seconds"))
    ax.set(xlabel="seconds since the search started", title="Search: best score over time")
    ax.legend(fontsize="small", loc="best")
    save(fig, path)
    return Plot(file=path.name, shows=f"the search's best cross-validated {report.metric} "
                "(full-share trials) over its seconds",
                values={"best": float(points[-1][1]), "seconds": float(points[-1][0])})


def stage_times(report: Report, path: Path) -> Plot:
    seconds = stage_seconds(report.timings, report.attempts,
                            report.refit.wall_s if report.refit else 0.0)
    names = list(seconds)[::-1]  # the run's first stage at the top
    fig, ax = figure(left=0.22)
    bars = ax.barh(names, [seconds[n] for n in names])
    ax.bar_label(bars, fmt="%.1f s", fontsize="small", padding=2)
    ax.set(xlabel="seconds", title="Time per stage")
    ax.margins(x=0.2)
    save(fig, path)
    return Plot(file=path.name, shows="wall seconds per stage (profiling, planning, "
                "candidates, search, ensemble, refit; other: start-up, checkpoints and "
                "routing) from the report's node timings and the refit's wall time",
                values=seconds)
