"""One results row from a finished run: the figures the paper-style tables are built from.

Failures are counted by taxonomy class with the same diagnostician for every topology:
where a topology never classified a failure (single-pass) or fed back only the raw
traceback (self-repair, sage-loop), the attempt is classified here, after the run, as a
measurement. The reliability score is recomputed over those measured diagnoses so that
topologies are compared on one footing.
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import get_args

import numpy as np

from pipesmith.agents.diagnostician.agent import Diagnostician
from pipesmith.agents.schemas import Attempt, Diagnosis
from pipesmith.core.reliability import lineages, reliability
from pipesmith.sandbox.base import ExecResult

EXEC_STATUSES = set(get_args(ExecResult.model_fields["status"].annotation))
ROW_KEYS = ("dataset", "topology", "seed", "status", "final_success", "first_pass_success",
            "rounds", "failures_by_class", "injected_faults", "score", "nmi", "baseline_scores",
            "wall_s", "peak_mem_mb", "tokens", "reliability_score")


def measured_diagnosis(attempt: Attempt) -> Diagnosis | None:
    """The attempt's own diagnosis when it has a taxonomy class; otherwise one made now."""
    if attempt.succeeded:
        return attempt.diagnosis
    if attempt.diagnosis is not None and attempt.diagnosis.taxonomy_class != "untyped":
        return attempt.diagnosis
    doctor = Diagnostician()
    if attempt.status == "rejected" and attempt.issues:
        return doctor.diagnose_issues(attempt.issues, "")
    status = attempt.status if attempt.status in EXEC_STATUSES else "error"
    return doctor.diagnose_result(ExecResult(status=status, exit_code=attempt.exit_code,
                                             wall_s=attempt.wall_s, stderr=attempt.error_tail), "")


def rounds_to_success(attempts: list[Attempt]) -> int:
    """Repair rounds before the run's first working candidate (0: a draft worked as it was);
    when nothing worked, the deepest repair tried."""
    groups = lineages(attempts)
    solved = [depth for members in groups.values() for a, depth in members if a.succeeded]
    if solved:
        return min(solved)
    return max((depth for members in groups.values() for _, depth in members), default=0)


def tokens_used(report_json: dict) -> int:
    """LLM tokens from the report's `llm` section (docs/report-schema.md); 0 for a run of
    the offline agents, which has none."""
    total = (report_json.get("llm") or {}).get("total") or {}
    return int(total.get("total_tokens", 0))


def cluster_score(metric: str, labels: np.ndarray, predicted: np.ndarray) -> float:
    from sklearn.metrics import adjusted_rand_score, normalized_mutual_info_score

    score = adjusted_rand_score if metric == "ari" else normalized_mutual_info_score
    return float(score(labels, predicted))


def row_from_report(report, *, dataset: str, topology: str, seed: int, metric: str,
                    labels: np.ndarray | None, wall_s: float) -> dict:
    attempts = [a.model_copy(update={"diagnosis": measured_diagnosis(a)})
                for a in report.attempts]
    final = next((a for a in attempts if a.id == report.final_attempt), None)
    failures = Counter(f"{a.diagnosis.taxonomy_class}.{a.diagnosis.subclass}"
                       for a in attempts if not a.succeeded and a.diagnosis is not None)
    score = report.test_score  # the refit pipeline on the untouched test part
    nmi = None  # clustering only: NMI beside the dataset's metric (ARI)
    if labels is not None:  # clustering: the test part's labels against the ground truth
        score = None
        refit = Path(report.out_dir) / "refit" / "predictions.npz"
        if final is not None and refit.exists():
            from pipesmith.core.referee import load_split

            predicted = np.load(refit)["pred"]
            test_rows = load_split(Path(report.out_dir))["test"]
            score = round(cluster_score(metric, labels[test_rows], predicted), 6)
            nmi = round(cluster_score("nmi", labels[test_rows], predicted), 6)
    raw = json.loads((Path(report.out_dir) / "report.json").read_text())
    return {
        "dataset": dataset, "topology": topology, "seed": seed, "status": report.status,
        "final_success": report.final_success, "first_pass_success": report.first_pass_success,
        "rounds": rounds_to_success(attempts), "failures_by_class": dict(sorted(failures.items())),
        "injected_faults": dict(sorted(Counter(a.injected_fault for a in attempts
                                               if a.injected_fault).items())),
        "score": score, "nmi": nmi, "baseline_scores": {}, "wall_s": round(wall_s, 2),
        "peak_mem_mb": round(max((a.peak_mem_mb for a in attempts), default=0.0), 1),
        "tokens": tokens_used(raw),
        "reliability_score": reliability(attempts, final, max_rounds(Path(report.out_dir))).score,
    }


def max_rounds(run_dir: Path) -> int:
    inputs = json.loads((run_dir / "run.json").read_text())["inputs"]
    return max(1, int(inputs["max_repair_rounds"]))


def error_row(*, dataset: str, topology: str, seed: int, error: str, wall_s: float) -> dict:
    """The harness itself failed on this job (not a failing candidate): kept, and retried on
    resume."""
    return {"dataset": dataset, "topology": topology, "seed": seed, "status": f"error: {error}",
            "final_success": False, "first_pass_success": False, "rounds": 0,
            "failures_by_class": {}, "injected_faults": {}, "score": None, "nmi": None,
            "baseline_scores": {},
            "wall_s": round(wall_s, 2), "peak_mem_mb": 0.0, "tokens": 0,
            "reliability_score": None}
