"""What saving a model with model_io.save_model costs against a plain joblib.dump, and
what predicting new rows through pipesmith.predict costs against calling the model.

    .venv/bin/python benchmarks/model_save.py

Models: a 300-tree random forest on digits (a large pickle) and logistic regression on
iris (a small one). Each figure is the median of --repeat runs in this process.
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path

import joblib
import pandas as pd
from sklearn.datasets import load_digits, load_iris
from sklearn.ensemble import RandomForestClassifier
from sklearn.linear_model import LogisticRegression

from pipesmith.core import model_io


def median_s(call, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        started = time.perf_counter()
        call()
        times.append(time.perf_counter() - started)
    return statistics.median(times)


def measure(name: str, model, bunch, tmp: Path, repeat: int) -> None:
    dumped, saved = tmp / f"{name}.joblib", tmp / f"{name}.saved"
    dump_s = median_s(lambda: joblib.dump(model, dumped), repeat)
    save_s = median_s(lambda: model_io.save_model(model, saved), repeat)
    load_dump = median_s(lambda: joblib.load(dumped), repeat)
    load_saved = median_s(lambda: joblib.load(saved), repeat)
    print(f"{name}: joblib.dump {dump_s * 1000:.1f} ms ({dumped.stat().st_size / 1e6:.2f} MB), "
          f"save_model {save_s * 1000:.1f} ms ({saved.stat().st_size / 1e6:.2f} MB), ratio "
          f"{save_s / dump_s:.2f}; joblib.load of each {load_dump * 1000:.1f} / "
          f"{load_saved * 1000:.1f} ms")
    run_dir = tmp / name
    run_dir.mkdir()
    model_io.save_model(model, run_dir / model_io.MODEL_FILE)
    model_io.write_schema(run_dir, bunch.frame, "target", "classification")
    rows = pd.concat([bunch.data] * 10, ignore_index=True)
    direct = median_s(lambda: (model.predict(rows), model.predict_proba(rows)), repeat)
    through = median_s(lambda: model_io.predict(run_dir, rows), repeat)
    print(f"{name}: predict {len(rows)} rows: model {direct * 1000:.1f} ms, "
          f"pipesmith.predict (schema check, load, predict) {through * 1000:.1f} ms")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    models = {
        "random_forest_300_digits": (RandomForestClassifier(300, random_state=0, n_jobs=1),
                                     load_digits(as_frame=True)),
        "logistic_iris": (LogisticRegression(max_iter=500), load_iris(as_frame=True)),
    }
    with tempfile.TemporaryDirectory() as tmp:
        for name, (model, bunch) in models.items():
            measure(name, model.fit(bunch.data, bunch.target), bunch, Path(tmp), args.repeat)

if __name__ == "__main__":
    main()
