"""The corpus of real broken pipelines (evals/corpus/): loading, data, and the check.

Each row of evals/corpus/manifest.csv is one broken script or module, modelled on a failure
reported in public (its source URL is in the row), with the data it runs on, the taxonomy
class its failure belongs to, the split it is in (dev: used while writing repairs; heldout:
reported on only; fresh: cases of kinds the project had not seen, added after the rules and
measured before any rule was written for them) and the floor its score must reach.
"Repaired" means: pipesmith's repair loop ends with code that runs, and that code scores at
least the floor — a script's score is the last `score=<float>` it prints, re-run here in the
sandbox; a module's score is the harness's on the data.
"""

from __future__ import annotations

import csv
import re
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

ROOT = Path(__file__).parent / "corpus"
REFERENCE = ROOT / "wild_reference"  # the wild cases' fixes and expected errors (WILD.md)
# collected from public threads (WILD*.md)
WILD_SPLITS = ("wild", "wild2", "wild3", "wild4", "wild5")
NEEDS = {"torch_": "torch", "keras_": "keras", "xgb_": "xgboost", "lgb_": "lightgbm",
         "catboost_": "catboost"}  # a wild case's library, by its id's prefix
SCORE = re.compile(r"score=(-?[\d.]+(?:e-?\d+)?)")


@dataclass(frozen=True)
class Case:
    id: str
    kind: str  # script or module
    data: str  # a generator name (DATA)
    target: str
    task: str  # classification or regression
    expected: str  # taxonomy class.subclass of the first failure
    floor: float
    split: str  # dev, heldout, fresh, wild, wild2 or wild3
    source: str
    note: str

    @property
    def file(self) -> Path:
        return ROOT / "cases" / f"{self.id}.py"

    @property
    def family(self) -> str:
        return self.expected.split(".")[0]


def load(split: str | None = None) -> list[Case]:
    with (ROOT / "manifest.csv").open() as handle:
        cases = [Case(**{**row, "floor": float(row["floor"])}) for row in csv.DictReader(handle)]
    return [c for c in cases if split is None or c.split == split]


def parse_score(stdout: str) -> float | None:
    found = SCORE.findall(stdout)
    return float(found[-1]) if found else None


# --- the data each case reads (data.csv next to the script) ---------------------------------


def _bundled(name: str, target: str) -> pd.DataFrame:
    from pipesmith.core.datasets import load_bundled

    frame = load_bundled(name).frame
    frame.columns = [re.sub(r"\W+", "_", c.replace(" (cm)", "")).strip("_") for c in frame.columns]
    return frame.rename(columns={"target": target})


def iris() -> pd.DataFrame:
    frame = _bundled("iris", "species")
    frame["species"] = np.array(["setosa", "versicolor", "virginica"])[frame["species"]]
    return frame


def iris_rare() -> pd.DataFrame:
    """Iris with a fourth species seen once (a hybrid recorded in the field)."""
    frame = iris()
    row = frame.iloc[[140]].assign(species="hybrid")
    return pd.concat([frame, row], ignore_index=True)


def passengers(n: int = 400, seed: int = 0) -> pd.DataFrame:
    """A Titanic-like table: text categories, missing ages, a rare port seen only early on."""
    rng = np.random.default_rng(seed)
    pclass = rng.choice([1, 2, 3], n, p=[0.25, 0.25, 0.5])
    sex = rng.choice(["male", "female"], n)
    age = rng.normal(30, 12, n).clip(1, 80).round()
    fare = (rng.gamma(2, 10, n) * (4 - pclass)).round(2)
    embarked = rng.choice(["S", "C"], n, p=[0.75, 0.25]).astype(object)
    embarked[rng.choice(np.arange(300), 12, replace=False)] = "Q"  # never in the last 100
    logit = 1.5 * (sex == "female") - 0.8 * (pclass - 2) - 0.02 * (age - 30)
    survived = (rng.random(n) < 1 / (1 + np.exp(-logit))).astype(int)
    age[rng.random(n) < 0.15] = np.nan
    return pd.DataFrame({"pclass": pclass, "sex": sex, "age": age, "fare": fare,
                         "embarked": embarked, "survived": survived})


def houses(n: int = 300, seed: int = 1) -> pd.DataFrame:
    """House prices: a text neighbourhood (one only early on), missing build years."""
    rng = np.random.default_rng(seed)
    rooms = rng.integers(1, 7, n)
    area = (rooms * 22 + rng.normal(0, 8, n)).round(1)
    hood = rng.choice(["north", "south", "east"], n).astype(object)
    hood[rng.choice(np.arange(220), 10, replace=False)] = "lake"
    year = rng.integers(1950, 2020, n).astype(float)
    price = (1500 * area + 20000 * (hood == "lake") + 300 * (year - 1950)
             + rng.normal(0, 8000, n)).round(-2)
    year[rng.random(n) < 0.1] = np.nan
    return pd.DataFrame({"rooms": rooms, "area": area, "neighborhood": hood,
                         "year_built": year, "price": price})


def plant(n: int = 300, seed: int = 2) -> pd.DataFrame:
    """A power plant's output from raw sensor readings on very different scales."""
    rng = np.random.default_rng(seed)
    temperature = rng.normal(20, 7, n)
    pressure = rng.normal(1013, 6, n)
    humidity = rng.uniform(30, 100, n)
    output = 480 - 2.1 * temperature + 0.05 * (pressure - 1013) - 0.15 * humidity \
        + rng.normal(0, 3, n)
    return pd.DataFrame({"temperature": temperature, "pressure": pressure,
                         "humidity": humidity, "output": output})


def churn(n: int = 500, seed: int = 3) -> pd.DataFrame:
    """Subscribers in sign-up order: text plan and region, a region missing for some, and a
    region and a plan that only appear among the latest sign-ups (a new market, a new plan)."""
    rng = np.random.default_rng(seed)
    plan = rng.choice(["basic", "plus", "premium"], n, p=[0.5, 0.3, 0.2]).astype(object)
    late = np.arange(n) >= n - 80
    plan[late & (rng.random(n) < 0.3)] = "family"
    region = rng.choice(["north", "south", "east"], n).astype(object)
    region[late & (rng.random(n) < 0.3)] = "west"
    tenure = rng.integers(1, 72, n)
    fee = np.select([plan == "basic", plan == "plus", plan == "premium"], [20.0, 35.0, 60.0],
                    45.0) + rng.normal(0, 3, n).round(2)
    calls = rng.poisson(1.5, n)
    logit = -1.0 + 0.6 * calls - 0.05 * tenure + 0.02 * (fee - 35) + 0.8 * (region == "south")
    churned = (rng.random(n) < 1 / (1 + np.exp(-logit))).astype(int)
    region[rng.random(n) < 0.08] = None
    return pd.DataFrame({"plan": plan, "region": region, "tenure_months": tenure,
                         "monthly_fee": fee.round(2), "support_calls": calls,
                         "churned": churned})


DATA = {
    "iris": iris, "iris_rare": iris_rare, "passengers": passengers, "houses": houses,
    "plant": plant, "churn": churn,
    "wine": lambda: _bundled("wine", "cultivar"),
    "breast_cancer": lambda: _bundled("breast_cancer", "malignant"),
    "diabetes": lambda: _bundled("diabetes", "progression"),
}


def write_data(case: Case, folder: Path) -> Path:
    path = folder / "data.csv"
    DATA[case.data]().to_csv(path, index=False)
    return path


def reference(split: str = "wild") -> Path:
    """The folder of a wild split's reference fixes and expected errors (<split>_reference)."""
    if split not in WILD_SPLITS:
        raise ValueError(f"{split!r} is not a split collected from threads: {WILD_SPLITS}")
    return ROOT / f"{split}_reference"


def expected_errors(split: str = "wild") -> dict[str, str]:
    """Each wild case's error, as its thread quotes it (<split>_reference/expected_errors.csv)."""
    with (reference(split) / "expected_errors.csv").open() as handle:
        return {row["id"]: row["error"] for row in csv.DictReader(handle)}


def runnable(case: Case) -> bool:
    """The case's library is installed here."""
    import importlib.util

    need = next((lib for prefix, lib in NEEDS.items() if case.id.startswith(prefix)), None)
    return need is None or importlib.util.find_spec(need) is not None
