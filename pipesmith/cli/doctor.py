"""`pipesmith doctor`: the isolation in force, what killed runs left behind (found and
removed by the sweep every command starts with), and the knowledge base's health."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console


def isolation() -> dict:
    """What the local backend would use here, layer by layer."""
    from pipesmith.sandbox import cgroups
    from pipesmith.sandbox.bwrap import bwrap_available
    from pipesmith.sandbox.local import network_namespace_available
    from pipesmith.sandbox.scratch import tmpfs_available
    from pipesmith.sandbox.seccomp import seccomp_available

    bwrap = bwrap_available()
    return {
        "bubblewrap": bwrap,
        "local_backend": "isolated (bwrap)" if bwrap else
        "refuses to run code (install bubblewrap, or --sandbox docker / unsafe-local)",
        "unsafe_local_fallback": "unshare --net" if network_namespace_available() else "none",
        "cgroups": {c: cgroups.writable(c) for c in ("pids", "memory", "cpuacct")},
        "disk_cap": "tmpfs" if tmpfs_available() else "RLIMIT_FSIZE (per file)",
        "seccomp": seccomp_available(),
        "dies_with_supervisor": "bwrap --die-with-parent, PR_SET_PDEATHSIG, pids cgroup",
    }


def kb_health(path: Path) -> dict:
    """Readable, writable, how many records, and whether the index agrees with the log."""
    from pipesmith.knowledge_base.store import KnowledgeBase

    if not path.exists():
        return {"path": str(path), "state": _absent(path)}
    if not path.is_dir():
        return {"path": str(path), "state": "not a directory: runs will not be recorded"}
    health: dict = {"path": str(path), "writable": os.access(path, os.W_OK)}
    try:
        kb = KnowledgeBase(path)
        stats = kb.stats()
        health |= {"runs": stats["runs"], "repairs": stats["repairs"]}
        health["index"] = kb.probe_result if kb.index and kb.probe_result else "unknown"
        health["state"] = "ok" if health["writable"] else "read-only: runs will not be recorded"
    except Exception as exc:  # a doctor reports, never crashes
        health |= {"state": "unreadable", "error": str(exc)[:300]}
    return health


def _absent(path: Path) -> str:
    """Whether a run could create the missing store: its nearest existing ancestor must
    be a writable directory."""
    ancestor = path.parent
    while not ancestor.exists() and ancestor != ancestor.parent:
        ancestor = ancestor.parent
    if not ancestor.is_dir():
        return f"absent, and cannot be created ({ancestor} is not a directory)"
    if not os.access(ancestor, os.W_OK):
        return f"absent, and cannot be created ({ancestor} is not writable)"
    return "absent (created by the first run)"


def register(app: typer.Typer) -> None:
    @app.command()
    def doctor(
        ctx: typer.Context,
        kb: Annotated[Path | None, typer.Option(
            help="Knowledge-base directory [default: settings.kb_dir].")] = None,
        as_json: Annotated[bool, typer.Option(
            "--json", help="Print the findings as JSON.")] = False,
    ) -> None:
        """Report the sandbox isolation in force, the leftovers of killed runs found and
        removed, and the knowledge base's health. Exit 0 when code can run isolated here
        and nothing was left that could not be removed, 1 otherwise."""
        from pipesmith.sandbox.owner import Sweep
        from pipesmith.settings import Settings

        sweep = (ctx.obj or {}).get("sweep") or Sweep()
        found = {"isolation": isolation(), "leftovers": sweep.as_dict(),
                 "knowledge_base": kb_health(kb or Settings().kb_dir)}
        healthy = found["isolation"]["bubblewrap"] and not sweep.failed
        if as_json:
            typer.echo(json.dumps(found, indent=2))
            raise typer.Exit(0 if healthy else 1)
        out = Console(highlight=False, soft_wrap=True)
        iso = found["isolation"]
        out.print(f"sandbox: local backend {iso['local_backend']}; cgroups "
                  + ", ".join(f"{k} {'yes' if v else 'no'}" for k, v in iso["cgroups"].items())
                  + f"; disk cap {iso['disk_cap']}; seccomp {'yes' if iso['seccomp'] else 'no'}")
        out.print(f"leftovers of killed runs: {len(sweep.found)} found, {len(sweep.removed)} "
                  f"removed, {len(sweep.failed)} could not be removed")
        for item in sweep.failed[:10]:
            out.print(f"  not removed: {item}")
        health = found["knowledge_base"]
        detail = ", ".join(f"{k} {v}" for k, v in health.items() if k not in ("path", "state"))
        out.print(f"knowledge base {health['path']}: {health['state']}"
                  + (f" ({detail})" if detail else ""))
        raise typer.Exit(0 if healthy else 1)
