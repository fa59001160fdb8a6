"""Bundle size and predict latency per 1,000 rows of `pipesmith export` bundles.

    .venv/bin/python benchmarks/export_bundle.py RUN_DIR [RUN_DIR ...] [--repeats 5]

For each run folder: export it (seconds), the bundle's size (all of it, and the model/
folder), then predict 1,000 rows (the run's rows, repeated) three ways, median of
--repeats: `python predict.py IN OUT` end to end (interpreter start, imports, load, check,
predict, write), the bundle's predict_frame in-process on a loaded model (check + predict
only), and `pipesmith predict` end to end for comparison. With --venv, also the seconds to
create a fresh virtual environment and `pip install -r requirements.txt` into it (from the
indexes and wheel folders pip is configured with; the PyTorch CPU index line is dropped, so
torch must come from those). Prints one line per run folder.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pandas as pd


def size_kb(path: Path) -> float:
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file()) / 1024


def timed(command: list[str], repeats: int) -> float:
    times = []
    for _ in range(repeats):
        started = time.perf_counter()
        subprocess.run(command, check=True, capture_output=True)
        times.append(time.perf_counter() - started)
    return statistics.median(times)


def in_process(bundle: Path, rows: Path, repeats: int) -> float:
    sys.path.insert(0, str(bundle))
    import predict  # the bundle's own predict.py

    model = predict.load_model(bundle)
    schema = predict.load_schema(bundle / predict.SCHEMA_FILE, bundle)
    frame = predict.read_table(rows)
    predict.predict_frame(model, frame, schema, bundle)  # warm: lazy imports
    times = []
    for _ in range(repeats):
        started = time.perf_counter()
        predict.predict_frame(model, frame, schema, bundle)
        times.append(time.perf_counter() - started)
    sys.path.remove(str(bundle))
    del sys.modules["predict"]
    return statistics.median(times)


def fresh_venv_s(bundle: Path, folder: Path) -> float:
    import venv

    requirements = folder / "requirements.txt"
    requirements.write_text("".join(line for line in (bundle / "requirements.txt").open()
                                    if not line.startswith("--extra-index-url")))
    started = time.perf_counter()
    venv.create(folder / "venv", with_pip=True)
    subprocess.run([str(folder / "venv" / "bin" / "python"), "-m", "pip", "install", "-q", "-r",
                    str(requirements)], check=True, capture_output=True)
    return time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("runs", nargs="+", type=Path)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--venv", action="store_true", help="also time a fresh venv install")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as scratch:
        for run in args.runs:
            bundle = Path(scratch) / f"{run.name}-bundle"
            started = time.perf_counter()
            subprocess.run([sys.executable, "-m", "pipesmith.cli", "export", str(run), "--out",
                            str(bundle)], check=True, capture_output=True)
            export_s = time.perf_counter() - started
            data = pd.read_parquet(run / "data.parquet")
            schema = pd.read_json(bundle / "schema.json", typ="series")
            features = data.drop(columns=[schema["target"]]) if schema["target"] else data
            rows = Path(scratch) / f"{run.name}-1000.csv"
            pd.concat([features] * (1000 // len(features) + 1)).head(1000).to_csv(rows,
                                                                                 index=False)
            script = timed([sys.executable, str(bundle / "predict.py"), str(rows),
                            str(Path(scratch) / "out.csv")], args.repeats)
            cli = timed([sys.executable, "-m", "pipesmith.cli", "predict", str(run), "--data",
                         str(rows), "--out", str(Path(scratch) / "cli.csv")], args.repeats)
            warm = in_process(bundle, rows, args.repeats)
            venv_part = ""
            if args.venv:
                folder = Path(scratch) / f"{run.name}-venv"
                folder.mkdir()
                venv_part = f"; fresh venv + pip install {fresh_venv_s(bundle, folder):.0f}s"
            print(f"{run.name}: export {export_s:.1f}s; bundle {size_kb(bundle):.0f} KiB "
                  f"(model/ {size_kb(bundle / 'model'):.0f} KiB); per 1,000 rows: "
                  f"predict.py end to end {script:.2f}s, in-process predict_frame "
                  f"{warm * 1000:.1f} ms, pipesmith predict end to end {cli:.2f}s{venv_part}")


if __name__ == "__main__":
    main()
