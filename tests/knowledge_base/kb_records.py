"""Record factories shared by the knowledge-base tests (importable by child processes)."""

from __future__ import annotations

from pipesmith.knowledge_base.records import RepairRecord, RunRecord


def run(run_id: str, task_type: str = "classification", rows: int = 500, columns: int = 10,
        categorical: int = 0, n_classes: int | None = 2, outcome: str = "succeeded",
        families: dict[str, float] | None = None, params: dict | None = None,
        dataset: str = "d", code: str = "def build_pipeline(task): ...", text: str = "",
        sklearn: str = "1.9.0", padding: int = 0) -> RunRecord:
    families = families if families is not None else {"random_forest": 0.2}
    best = max(families, key=families.get) if families else None
    return RunRecord(
        run_id=run_id, task_text=text or f"{task_type} on {dataset}", dataset=dataset,
        task_type=task_type, metric="accuracy" if task_type == "classification" else "r2",
        summary=f"{task_type} task; {rows} rows; {columns - categorical} numeric; "
                f"{categorical} categorical",
        meta_features={"rows": rows, "columns": columns, "numeric": columns - categorical,
                       "categorical": categorical, "missing_share": 0.0,
                       "n_classes": n_classes, "minority_share": 0.5 if n_classes else None},
        family_scores=families, family_params={f: dict(params or {}) for f in families},
        final_code=code + "#" * padding if outcome == "succeeded" else None,
        final_family=best if outcome == "succeeded" else None, score=0.9, baseline_score=0.5,
        outcome=outcome, resources={"elapsed_s": 1.0}, versions={"scikit-learn": sklearn},
        topology="full",
        executions=[{"family": best, "rows": rows, "columns": columns,
                     "predicted_mem_mb": 100.0, "measured_mem_mb": 90.0,
                     "predicted_wall_s": 1.0, "measured_wall_s": 0.8}],
    )


def repair(run_id: str, signature: str, action: str, fixed: bool) -> RepairRecord:
    return RepairRecord(run_id=run_id, signature=signature, taxonomy="data.missing_values",
                        action=action, fixed=fixed, succeeded=fixed,
                        diff=f"--- a\n+++ b\n+{action}\n", versions={})
