"""What every plot shares: the Plot record and a small Agg figure.

matplotlib is imported here only when a figure is drawn (a run that draws nothing never
loads it). Figures are made with the object-oriented API on an Agg canvas, never through
pyplot: no global backend is switched in the caller's process (a notebook keeps its own),
and nothing is registered that would have to be closed; a figure is freed with the object.
"""

from __future__ import annotations

from pathlib import Path

from pydantic import BaseModel, ConfigDict

SIZE_IN = (5.0, 4.0)
DPI = 100
MAX_POINTS = 2000  # scatter plots: a seeded sample of the test rows beyond this
MAX_CURVES = 10  # one-vs-rest curves: the most frequent classes beyond this


class Plot(BaseModel):
    """One PNG in the run folder: its file name, what it shows, and the numbers it prints
    (an AUC per class, R², ...) so report.json holds them too."""

    model_config = ConfigDict(frozen=True)

    file: str
    shows: str
    values: dict[str, float] = {}


def figure(left: float = 0.15, bottom: float = 0.13):
    """(figure, axes): one small figure on an Agg canvas. Fixed margins (room for the
    tick labels on the left and at the bottom), not a layout engine: that would draw the
    figure twice per save, doubling the plots' cost."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    fig = Figure(figsize=SIZE_IN, dpi=DPI)
    FigureCanvasAgg(fig)
    fig.subplots_adjust(left=left, bottom=bottom, right=0.96, top=0.92)
    return fig, fig.add_subplot()


def save(fig, path: Path) -> None:
    """Write the PNG whole or not at all: a reader (report.md, export) never sees half a
    file."""
    tmp = path.with_name(path.name + ".tmp")
    try:
        fig.savefig(tmp, format="png")
        tmp.replace(path)
    finally:
        tmp.unlink(missing_ok=True)


def sample(n: int, seed: int = 0, limit: int = MAX_POINTS):
    """Row positions to draw: all of them, or a seeded sample of `limit`."""
    import numpy as np

    if n <= limit:
        return np.arange(n)
    return np.sort(np.random.default_rng(seed).choice(n, size=limit, replace=False))
