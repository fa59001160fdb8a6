"""pipesmith: a dataset and a plain-language task in, a trained, validated ML pipeline out.

    from pipesmith import run, build_graph
    report = run(dataset="breast_cancer", budget_s=60)
    predictions = predict(report.out_dir, new_rows)   # a DataFrame

Imports are lazy so that the sandbox harness, which imports pipesmith.core.metrics in
every run, does not pay for LangGraph and Chroma.
"""

from __future__ import annotations

from typing import Any

__all__ = ["build_graph", "predict", "resume", "run", "Report", "Settings"]
__version__ = "0.1.0"


def __getattr__(name: str) -> Any:
    if name in ("run", "resume"):
        from pipesmith import api

        return getattr(api, name)
    if name == "predict":
        from pipesmith.core.model_io import predict

        return predict
    if name == "build_graph":
        from pipesmith.graph.builder import build_graph

        return build_graph
    if name == "Report":
        from pipesmith.core.report import Report

        return Report
    if name == "Settings":
        from pipesmith.settings import Settings

        return Settings
    raise AttributeError(f"module 'pipesmith' has no attribute {name!r}")
