"""pipeline.yaml: a declarative spec of an exported pipeline, validated against the JSON
Schema in pipesmith/export/templates/pipeline.schema.json (documented in docs/export.md),
and the platform component (Kubeflow-style component spec) generated from it."""

from __future__ import annotations

import json
import re
from importlib.resources import files

import yaml

from pipesmith.export.run_source import RunSource

API_VERSION = "pipesmith.dev/v1"
DROPPED_KINDS = ("id", "constant", "text")  # dates are features (DateFeatures)


def schema() -> dict:
    return json.loads(files("pipesmith.export").joinpath("templates/pipeline.schema.json")
                      .read_text())


def platform_name(run_id: str) -> str:
    """A name platforms accept (DNS-label-like): lower case, digits, '-' and '.'."""
    return re.sub(r"[^a-z0-9.-]+", "-", f"pipesmith-{run_id}".lower()).strip("-.")


def _score(value) -> float | None:
    return None if value is None else round(float(value), 6)


def scores(source: RunSource) -> dict:
    """CV and test scores; `test` is null until the run has an untouched test part."""
    report, final = source.report, source.final
    folds = list(final.fold_scores)
    return {
        "metric": report.metric,
        "cv": {"mean": _score(report.score), "folds": [_score(s) for s in folds]},
        "test": _score(getattr(report, "test_score", None)),
        "test_baseline": _score(getattr(report, "test_baseline_score", None)),
        "baseline": _score(report.baseline_score),
    }


def _n_jobs(source: RunSource) -> int | None:
    run_json = source.run_dir / "run.json"
    if not run_json.is_file():
        return None
    return json.loads(run_json.read_text()).get("inputs", {}).get("n_jobs")


def resources(source: RunSource) -> dict:
    final = source.final
    return {
        "predicted": {"memory_mb": final.predicted_mem_mb, "wall_s": final.predicted_wall_s},
        "bound": {"coverage": 0.95, "method": "split-conformal",
                  "memory_mb": final.mem_bound_mb, "wall_s": final.wall_bound_s},
        "measured": {"memory_mb": final.peak_mem_mb, "wall_s": final.wall_s,
                     "cpu_s": final.cpu_s},
        "limits": {"memory_mb": final.memory_limit_mb, "timeout_s": final.timeout_s},
        "cpu": {"cores": _n_jobs(source)},
    }


def build_spec(source: RunSource, probe: dict, pins: dict[str, str], image: str) -> dict:
    report = source.report
    profile = report.profile
    return {
        "apiVersion": API_VERSION,
        "kind": "Pipeline",
        "metadata": {"name": platform_name(report.run_id), "run_id": report.run_id,
                     "task": report.task_text, "dataset": report.dataset},
        "data": {
            "target": report.target,
            "task_type": report.task_type,
            "rows": profile.n_rows,
            "rows_dropped_missing_target": report.rows_dropped_missing_target,
            "columns": [{"name": c.name, "kind": c.kind, "dtype": c.dtype,
                         "missing_share": c.missing_share} for c in profile.columns],
            "dropped_columns": [c.name for c in profile.columns if c.kind in DROPPED_KINDS],
            "classes": probe["classes"],
        },
        "steps": [{"name": s["name"], "class": s["class"], "params": s["params"]}
                  | ({"transformers": s["transformers"]} if "transformers" in s else {})
                  for s in probe["steps"]],
        "candidate": report.final_candidate,
        "seed": report.seed,
        "scores": scores(source),
        "resources": resources(source),
        "environment": {"python": report.versions.get("python"), "image": image,
                        "requirements": dict(sorted(pins.items())),
                        "telemetry": {"MLFLOW_DISABLE_TELEMETRY": "true",
                                      "DO_NOT_TRACK": "true"}},
        "entrypoints": {"predict": ["python", "predict.py", "INPUT", "OUTPUT"],
                        "train": ["python", "train.py", "--data", "TABLE"]},
    }


def validate(spec: dict) -> list[str]:
    """Schema violations, one line each (empty when the spec is valid)."""
    import jsonschema

    validator = jsonschema.Draft202012Validator(schema())
    return [f"{'/'.join(map(str, error.absolute_path)) or '(root)'}: {error.message}"
            for error in sorted(validator.iter_errors(spec), key=lambda e: list(e.path))]


def component(spec: dict) -> dict:
    """A Kubeflow Pipelines (v1 YAML) component that runs the bundle's predict step."""
    return {
        "name": f"{spec['metadata']['name']}-predict",
        "description": f"Predict {spec['data']['target']} ({spec['data']['task_type']}, "
                       f"{spec['scores']['metric']}) with the pipeline pipesmith exported.",
        "inputs": [{"name": "features", "type": "Dataset",
                    "description": "CSV or Parquet with the columns in pipeline.yaml data"}],
        "outputs": [{"name": "predictions", "type": "Dataset",
                     "description": "CSV: prediction, and proba_<class> for classifiers"}],
        "metadata": {"annotations": {"pipesmith/run_id": spec["metadata"]["run_id"]}},
        "implementation": {"container": {
            "image": spec["environment"]["image"],
            "command": ["python", "/bundle/predict.py"],
            "args": [{"inputPath": "features"}, {"outputPath": "predictions"}],
        }},
    }


def dump(data: dict) -> str:
    return yaml.safe_dump(data, sort_keys=False, allow_unicode=True, width=100)
