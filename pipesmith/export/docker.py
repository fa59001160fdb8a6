"""The bundle's Dockerfile and .dockerignore, and a small parser the tests and `export`
use to check that the Dockerfile names only files that are in the bundle."""

from __future__ import annotations

import json
import shlex

DOCKERIGNORE = ["train.py", "MODEL_CARD.md", "pipeline.yaml", "components/", "plots/",
                "**/__pycache__", "**/*.pyc"]


def base_image(python: str) -> str:
    """A slim Python base of the run's minor version, e.g. python:3.11-slim."""
    major_minor = ".".join(python.split(".")[:2])
    return f"python:{major_minor}-slim"


def dockerfile(python: str) -> str:
    lines = [
        "# Written by `pipesmith export`: the prediction step of the exported pipeline.",
        "#   docker build -t IMAGE .",
        "#   docker run --rm --network none -v $PWD:/data IMAGE /data/in.csv /data/out.csv",
        f"FROM {base_image(python)}",
        "ENV MLFLOW_DISABLE_TELEMETRY=true DO_NOT_TRACK=true PYTHONDONTWRITEBYTECODE=1 \\",
        "    PIP_DISABLE_PIP_VERSION_CHECK=1",
        "WORKDIR /bundle",
        "COPY requirements.txt ./",
        "RUN pip install --no-cache-dir -r requirements.txt",
        "COPY predict.py schema.json ./",
        "COPY model/ model/",
        "COPY vendor/ vendor/",
        "RUN useradd --create-home bundle",
        "USER bundle",
        'ENTRYPOINT ["python", "/bundle/predict.py"]',
    ]
    return "\n".join(lines) + "\n"


def instructions(text: str) -> list[tuple[str, str]]:
    """(INSTRUCTION, arguments) per instruction, continuation lines joined, comments out."""
    found, pending = [], ""
    for raw in text.splitlines():
        line = raw.strip()
        if not pending and (not line or line.startswith("#")):
            continue
        if line.endswith("\\"):
            pending += line[:-1] + " "
            continue
        line, pending = pending + line, ""
        keyword, _, rest = line.partition(" ")
        found.append((keyword.upper(), rest.strip()))
    if pending:
        raise ValueError("the Dockerfile ends inside a continued line")
    return found


def copied_sources(text: str) -> list[str]:
    """Every source path of COPY/ADD (exec form or shell form, flags skipped)."""
    sources = []
    for keyword, rest in instructions(text):
        if keyword not in ("COPY", "ADD"):
            continue
        parts = json.loads(rest) if rest.startswith("[") else shlex.split(rest)
        parts = [p for p in parts if not p.startswith("--")]
        sources += parts[:-1]
    return sources
