"""Repair rate on the corpus of real broken pipelines (evals/corpus/), per class.

    python benchmarks/repair_corpus.py [--split heldout] [--rounds 4] [--ids a,b]
                                       [--run-timeout 60] [--json out.json]

Each case runs through `pipesmith repair` (offline, no knowledge base, the real local
sandbox). A case counts as repaired when the loop ends with working code and that code
scores at least the case's floor (a script's last `score=` line, re-run here in the
sandbox; a module's harness score). Diagnosis accuracy compares the first diagnosis with
the class the case's manifest row gives. Report on the held-out half only; the dev half is
what the repair rules were written against. The `fresh` split holds cases added after the
rules, measured once before any rule was written for them (docs/repairs.md says which were
fixed afterwards). The `wild` split holds breakages collected from public threads after the
method was frozen, run once (evals/corpus/WILD.md); its `expected` column may say `unknown`.
The `wild2` split is a second such set, collected for issue #25 by someone who did not read the
repair method (evals/corpus/WILD2.md), likewise to be run once; `wild3` is a third
(evals/corpus/WILD3.md), `wild4` a fourth (evals/corpus/WILD4.md) and `wild5` a fifth
(evals/corpus/WILD5.md), collected the same way.
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path

STANDIN_ARMS = ("oracle", "echo")
EXPLANATION = json.dumps({"explanation": "(the stand-in's explanation)",
                          "suggested_fix": "(the stand-in's fix)"})


def standin_for(case, arm: str):
    """A stand-in OpenAI-compatible server on 127.0.0.1 that answers every repair with one
    script: the case's reference fix (`oracle`: a model that writes the right fix at once)
    or the case unchanged (`echo`: a model that fixes nothing); explanations are a fixed
    JSON. It measures what the loop does with a model's answer, not what a model would
    write."""
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    from pipesmith.evals.repair_corpus import reference
    from tests.openai_standin import Reply, StandIn

    source = reference(case.split) / case.file.name if arm == "oracle" else case.file
    answer = f"```python\n{source.read_text()}```\n"

    class Answering(StandIn):
        def next_reply(self, body: dict) -> Reply:
            with self._lock:
                self.requests.append(body)
            structured = body.get("tools") or body.get("response_format")
            return Reply(EXPLANATION if structured else answer)

    return Answering()


def run_case(case, rounds: int, timeout_s: float, workdir: Path,
             standin: str | None = None) -> dict:
    if standin is None:
        return _run_case(case, rounds, timeout_s, workdir)
    with standin_for(case, standin) as server:
        row = _run_case(case, rounds, timeout_s, workdir, llm={
            "llm": "openai", "llm_model": "stand-in", "llm_base_url": server.base_url,
            "llm_api_key": "stand-in-key",
            "llm_agents": {a: {"max_retries": 0, "timeout_s": 30}
                           for a in ("planner", "coder", "diagnostician")}})
        return row | {"model_calls": len(server.requests)}


def _run_case(case, rounds: int, timeout_s: float, workdir: Path,
              llm: dict | None = None) -> dict:
    from pipesmith.api import repair
    from pipesmith.evals.repair_corpus import parse_score, write_data
    from pipesmith.sandbox.base import ExecJob
    from pipesmith.sandbox.local import LocalSandbox
    from pipesmith.settings import Settings

    folder = workdir / case.id
    folder.mkdir(parents=True)
    script = folder / f"{case.id}.py"
    shutil.copy(case.file, script)
    data = write_data(case, folder)
    settings = Settings(use_kb=False, run_timeout_s=timeout_s, **(llm or {}))
    sandbox = LocalSandbox()
    started = time.perf_counter()
    report = repair(script, data=data, target=case.target, task=case.task, rounds=rounds,
                    out=workdir / f"{case.id}-out", settings=settings, sandbox=sandbox)
    first = report.attempts[0].diagnosis
    diagnosed = f"{first.taxonomy_class}.{first.subclass}" if first else "none"
    score = None
    if report.final_success:
        if case.kind == "module":
            score = report.attempts[-1].score
        else:  # re-run the final script and read its score
            final = Path(report.repaired_file) if report.repaired_file else script
            run = workdir / f"{case.id}-check"
            shutil.copytree(folder, run)
            shutil.copy(final, run / script.name)
            result = sandbox.run(ExecJob(command=[sys.executable, script.name], workdir=run,
                                         timeout_s=timeout_s, memory_mb=4096, disk_mb=1024))
            score = parse_score(result.stdout) if result.ok else None
    # a partial repair (it runs, but a patch dropped what the code did) is no repair
    repaired = score is not None and score >= case.floor and report.status != "partial"
    return {"id": case.id, "family": case.family, "expected": case.expected,
            "diagnosed": diagnosed, "diagnosis_ok": diagnosed == case.expected,
            "final_success": report.final_success, "score": score, "floor": case.floor,
            "repaired": repaired, "status": report.status, "notes": report.notes,
            "rounds": report.rounds_used,
            "actions": [a.repair_action for a in report.attempts if a.repair_action],
            "stop_reason": report.stop_reason,
            "seconds": round(time.perf_counter() - started, 1)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--split", default="heldout",
                        choices=["dev", "heldout", "fresh", "wild", "wild2", "wild3", "wild4",
                                 "wild5", "all"])
    parser.add_argument("--rounds", type=int, default=4)
    parser.add_argument("--ids", default="", help="comma-separated case ids (default: all)")
    parser.add_argument("--run-timeout", type=float, default=60.0)
    parser.add_argument("--json", type=Path, default=None)
    parser.add_argument("--standin", choices=STANDIN_ARMS, default=None,
                        help="LLM mode against a stand-in server on 127.0.0.1 that answers "
                             "each repair with the reference fix (oracle; wild splits) or "
                             "the case unchanged (echo)")
    args = parser.parse_args()

    from pipesmith.evals.repair_corpus import load

    cases = load(None if args.split == "all" else args.split)
    if args.ids:
        wanted = set(args.ids.split(","))
        cases = [c for c in cases if c.id in wanted]
    rows = []
    with tempfile.TemporaryDirectory(prefix="pipesmith-corpus-") as tmp:
        for case in cases:
            row = run_case(case, args.rounds, args.run_timeout, Path(tmp), args.standin)
            rows.append(row)
            mark = "repaired" if row["repaired"] else "NOT repaired"
            print(f"{row['id']:38s} {mark:12s} diag {row['diagnosed']:36s} "
                  f"score {row['score']} ({row['seconds']}s) {'+'.join(row['actions'])}"
                  + ("" if row["repaired"] else f" -- {row['stop_reason']}"), flush=True)
    by_family = defaultdict(list)
    for row in rows:
        by_family[row["family"]].append(row)
    print(f"\nsplit {args.split}: {len(rows)} cases, rounds {args.rounds}"
          + (f", LLM mode against the {args.standin} stand-in" if args.standin else ""))
    statuses = defaultdict(int)
    for row in rows:
        statuses[row["status"]] += 1
    print("statuses: " + ", ".join(f"{k} {v}" for k, v in sorted(statuses.items())))
    print(f"{'class':12s} {'cases':>5s} {'repaired':>9s} {'diagnosis':>10s}")
    for family, members in sorted(by_family.items()):
        print(f"{family:12s} {len(members):5d} "
              f"{sum(r['repaired'] for r in members) / len(members):9.0%} "
              f"{sum(r['diagnosis_ok'] for r in members) / len(members):10.0%}")
    if rows:
        print(f"{'all':12s} {len(rows):5d} {sum(r['repaired'] for r in rows) / len(rows):9.0%} "
              f"{sum(r['diagnosis_ok'] for r in rows) / len(rows):10.0%}")
    if args.json:
        args.json.write_text(json.dumps(rows, indent=2))


if __name__ == "__main__":
    main()
