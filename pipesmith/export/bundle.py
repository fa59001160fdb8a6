"""`pipesmith export`: a deployment bundle from a finished run.

The bundle runs without the run folder and without pipesmith: predict.py (the same code as
`pipesmith.export.bundle_predict`), train.py, requirements.txt (pinned, conflict-checked),
Dockerfile and .dockerignore, pipeline.yaml (validated) with a generated platform
component, model/ (MLflow pyfunc), MODEL_CARD.md. The pipesmith modules the bundle needs
(model_io for predict.py, the estimators a model pickles by reference) are vendored into
vendor/ (docs/export.md says why). Everything is written into a staging folder that
replaces --out at the end, so a failed export leaves nothing behind.
"""

from __future__ import annotations

import ast
import importlib.util
import json
import shutil
import sys
import tempfile
from importlib.resources import files
from pathlib import Path

import structlog

from pipesmith.errors import InputError
from pipesmith.export import card as export_card
from pipesmith.export import docker as export_docker
from pipesmith.export import requirements as export_requirements
from pipesmith.export import spec as export_spec
from pipesmith.export.run_source import RunSource, load_run

log = structlog.get_logger(__name__)
FORMATS = ("bundle", "mlflow")
TELEMETRY_OFF = {"MLFLOW_DISABLE_TELEMETRY": "true", "DO_NOT_TRACK": "true"}
SAMPLE_ROWS = 5
EXPORT_JOB_S = 600.0  # a sandbox job of the export (probe, MLflow model)
BUNDLE_MODULES = ("pipesmith.core.model_io",)  # predict.py checks and predicts with it
TRAIN_WRAPPER = '''"""Retrain the exported pipeline on a table with the run's seed:
python train.py --data TABLE [--target COLUMN] [--seed N] [--out model.joblib]
(pipeline.py is the run's standalone script; this puts vendor/ on the path first)."""

import os
import runpy
import sys
from pathlib import Path

os.environ.update({"MLFLOW_DISABLE_TELEMETRY": "true", "DO_NOT_TRACK": "true"})
HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE / "vendor"))
runpy.run_path(str(HERE / "pipeline.py"), run_name="__main__")
'''


def check_out(out: Path, force: bool) -> None:
    if out.exists() and not out.is_dir():
        raise InputError(f"--out {out} exists and is not a folder")
    if out.is_dir() and any(out.iterdir()) and not force:
        raise InputError(f"--out {out} exists and is not empty (use --force to replace it)")


def check_mlflow() -> None:
    if importlib.util.find_spec("mlflow") is None:
        raise InputError('export writes an MLflow model: pip install "pipesmith[mlflow]"')


def export(run_dir: Path, out: Path, fmt: str = "bundle", force: bool = False) -> Path:
    """Write the bundle (or, with fmt="mlflow", only the MLflow model) to out."""
    if fmt not in FORMATS:
        raise InputError(f"--format must be one of {', '.join(FORMATS)}, not {fmt!r}")
    source = load_run(Path(run_dir))
    out = Path(out)
    check_out(out, force)
    check_mlflow()
    out.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{out.name}.", dir=out.parent))
    staging.chmod(0o755)
    try:
        with tempfile.TemporaryDirectory(prefix="pipesmith-export-") as scratch:
            build(source, staging, Path(scratch))
        result = staging / "model" if fmt == "mlflow" else staging
        if out.exists():
            shutil.rmtree(out)
        result.rename(out)
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    log.info("exported", run=source.report.run_id, out=str(out), format=fmt)
    return out


def _in_sandbox(args: list[str], workdir: Path, what: str, model: Path) -> str:
    """`python -m ARGS` as a sandbox job in `workdir`, the model readable: loading a model
    runs the code that pickled it, so it is never loaded in this process. Its stdout, or an
    InputError naming what failed."""
    from pipesmith.core.model_host import model_sandbox, one_line
    from pipesmith.sandbox.base import ExecJob

    result = model_sandbox().run(ExecJob(
        command=[sys.executable, "-m", *args], workdir=workdir, timeout_s=EXPORT_JOB_S,
        memory_mb=4096, disk_mb=2048, read_paths=(model.resolve(),), env=TELEMETRY_OFF))
    if not result.ok:
        tail = (result.stderr.strip().splitlines() or [result.detail or "no output"])[-1]
        raise InputError(f"{what} failed in the sandbox ({result.status}): {one_line(tail)}")
    return result.stdout


def write_sample(source: RunSource, path: Path) -> Path:
    """The first rows of the run's table, features only: the probe's and MLflow's example."""
    import pandas as pd

    frame = pd.read_parquet(source.data_path).head(SAMPLE_ROWS)
    frame[source.feature_columns].to_parquet(path, index=False)
    return path


def probe(source: RunSource, scratch: Path, sample: Path) -> dict:
    """What the model needs at predict time, measured in a sandbox job; the answer is
    untrusted, so only well-formed names and plain values are kept."""
    workdir = scratch / "probe"
    workdir.mkdir()
    shutil.copyfile(sample, workdir / sample.name)
    output = _in_sandbox(["pipesmith.export.probe", str(source.model_path.resolve()), ".",
                          sample.name], workdir, "loading the run's model", source.model_path)
    try:
        found = json.loads((output.strip().splitlines() or ["{}"])[-1])
    except ValueError:
        found = None
    if not isinstance(found, dict):
        raise InputError("loading the run's model in the sandbox gave no description")
    return {"imported": _names(found.get("imported")), "globals": _names(found.get("globals")),
            "steps": found.get("steps") if isinstance(found.get("steps"), list) else [],
            "classes": found.get("classes") if isinstance(found.get("classes"), list) else []}


def _names(values) -> list[str]:
    """Module names from untrusted output: dotted identifiers only."""
    if not isinstance(values, list):
        return []
    return sorted({v for v in values if isinstance(v, str) and len(v) < 200
                   and all(part.isidentifier() for part in v.split("."))})


def pipesmith_imports(code: str, module_level: bool = False) -> set[str]:
    """Full names of the pipesmith modules a module imports (with module_level, only the
    imports run when it is imported)."""
    tree = ast.parse(code)
    found = set()
    for node in (tree.body if module_level else ast.walk(tree)):
        if isinstance(node, ast.Import):
            found |= {a.name for a in node.names if a.name.startswith("pipesmith.")}
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module \
                and node.module.startswith("pipesmith."):
            found.add(node.module)
    return found


def vendor_pipesmith(modules: set[str], vendor: Path) -> list[str]:
    """Copy each pipesmith module (and the pipesmith modules it imports when imported) into
    vendor/ under the same dotted name; packages above them get empty __init__ files unless
    they are vendored themselves. Returns the copied sources."""
    codes, todo, done = [], sorted(modules), set()
    while todo:
        name = todo.pop()
        if name in done:
            continue
        done.add(name)
        spec = importlib.util.find_spec(name)
        if spec is None or not spec.origin or not spec.origin.endswith(".py"):
            raise InputError(f"the model needs {name}, which cannot be vendored")
        parts = name.split(".")
        for depth in range(1, len(parts) + 1):
            package = vendor.joinpath(*parts[:depth])
            if depth < len(parts) or spec.submodule_search_locations is not None:
                package.mkdir(parents=True, exist_ok=True)
                (package / "__init__.py").touch()
        code = Path(spec.origin).read_text()
        if spec.submodule_search_locations is not None:
            vendor.joinpath(*parts, "__init__.py").write_text(code)
        else:
            vendor.joinpath(*parts[:-1], parts[-1] + ".py").write_text(code)
        codes.append(code)
        todo += sorted(pipesmith_imports(code, module_level=True) - done)
    return codes


def write_mlflow_model(source: RunSource, bundle: Path, scratch: Path, sample: Path,
                       pins: dict[str, str]) -> None:
    """bundle/model, written by a sandbox job (MLflow loads the model to check the example)
    on a copy of the bundle; only its regular files come back."""
    workdir = scratch / "mlflow"
    shutil.copytree(bundle, workdir / "bundle")
    shutil.copyfile(sample, workdir / sample.name)
    (workdir / "pins.json").write_text(json.dumps(pins))
    _in_sandbox(["pipesmith.export.mlflow_model", "bundle", str(source.model_path.resolve()),
                 sample.name, "pins.json"], workdir, "writing the MLflow model", source.model_path)
    shutil.copytree(workdir / "bundle" / "model", bundle / "model", symlinks=False)


def check_versions(source: RunSource, pins: dict[str, str]) -> None:
    """The pins are the installed versions: they must be the ones the run used."""
    for name, used in source.report.versions.items():
        pinned = pins.get(name)
        if pinned is not None and pinned != used:
            raise InputError(f"the run used {name} {used} but {pinned} is installed: the bundle "
                             f"would not reproduce the run (install {name}=={used})")


def build(source: RunSource, bundle: Path, scratch: Path) -> None:
    sample = write_sample(source, scratch / "sample.parquet")
    found = probe(source, scratch, sample)

    code = source.pipeline_path.read_text()  # the final candidate and its retraining entry
    wanted = ({m for m in found["globals"] if m.startswith("pipesmith.")}
              | pipesmith_imports(code) | set(BUNDLE_MODULES))
    vendored = vendor_pipesmith(wanted, bundle / "vendor")
    # at predict time: what loading and predicting imported (measured); at train time:
    # pipeline.py's imports and what the vendored modules import when imported
    modules = set(found["imported"]) | export_requirements.code_imports(code)
    for text in vendored:
        modules |= export_requirements.code_imports(text, module_level=True)
    pins = export_requirements.pinned(modules)
    conflicts = export_requirements.check(pins)
    if conflicts:
        raise export_requirements.conflict_error(conflicts)
    check_versions(source, pins)

    (bundle / "schema.json").write_text(source.schema.model_dump_json(indent=2) + "\n")
    package = files("pipesmith.export")
    (bundle / "predict.py").write_text(package.joinpath("bundle_predict.py").read_text())
    (bundle / "mlflow_model.py").write_text(
        package.joinpath("templates/mlflow_model.py.txt").read_text())
    shutil.copyfile(source.pipeline_path, bundle / "pipeline.py")
    (bundle / "train.py").write_text(TRAIN_WRAPPER)
    (bundle / "requirements.txt").write_text(export_requirements.requirements_text(pins))
    write_mlflow_model(source, bundle, scratch, sample, pins)

    python = source.report.versions.get("python", "3.11")
    dockerfile = export_docker.dockerfile(python)
    missing = [p for p in export_docker.copied_sources(dockerfile) if not (bundle / p).exists()]
    if missing:
        raise RuntimeError(f"the Dockerfile copies files the bundle lacks: {missing}")
    (bundle / "Dockerfile").write_text(dockerfile)
    (bundle / ".dockerignore").write_text("\n".join(export_docker.DOCKERIGNORE) + "\n")

    image = f"{export_spec.platform_name(source.report.run_id)}:latest"
    spec = export_spec.build_spec(source, found, pins, image)
    errors = export_spec.validate(spec)
    if errors:
        raise RuntimeError(f"pipeline.yaml does not match its schema: {errors[0]}")
    (bundle / "pipeline.yaml").write_text(export_spec.dump(spec))
    (bundle / "components").mkdir()
    (bundle / "components" / "predict.component.yaml").write_text(
        export_spec.dump(export_spec.component(spec)))

    plots = sorted(p.name for p in source.run_dir.glob("*.png"))
    if plots:
        (bundle / "plots").mkdir()
        for name in plots:
            shutil.copyfile(source.run_dir / name, bundle / "plots" / name)
    (bundle / "MODEL_CARD.md").write_text(export_card.model_card(source, spec, plots))
