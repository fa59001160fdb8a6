"""Reformulation: a failure and its lineage turned into the coder's RepairRequest.

One function for the run's graph (graph/nodes.py: repair) and for `pipesmith repair`
(pipesmith/user_code/repair.py), so both repair with the same context: the failing code and its
diagnosis, the diagnoses earlier in the lineage, the actions already tried on each error
signature, every code the lineage ran, what fixed the same signature before (the
knowledge base's fix rates and diffs) and the data's columns.
"""

from __future__ import annotations

from collections.abc import Mapping

from pipesmith.agents.schemas import Candidate, Diagnosis, RepairRequest


def repair_request(chain: list[Candidate], diagnoses: Mapping[str, Diagnosis | None],
                   diagnosis: Diagnosis, columns: list[str], leaky_columns: list[str],
                   kb=None, with_context: bool = True) -> RepairRequest:
    """`chain`: the failing candidate and its ancestors, newest first; `diagnoses`: each
    candidate's diagnosis by id. Without `with_context` (topologies that do not
    reformulate) the request carries no history and no past fixes."""
    failed = chain[0]
    context: dict = {}
    if with_context:
        fixes = kb.fix_rates(diagnosis.signature) if kb is not None else []  # best first
        context = dict(
            history=[diagnoses[c.id] for c in chain[1:] if diagnoses.get(c.id)],
            past_fixes=[fix.action for fix in fixes],
            past_fix_diffs=[fix.last_fix_diff for fix in fixes])
    return RepairRequest(
        candidate=failed,
        diagnosis=diagnosis,
        tried=tried_actions(chain, diagnoses),
        lineage_codes=[c.code for c in chain],
        columns=columns,
        leaky_columns=leaky_columns,
        **context,
    )


def tried_actions(chain: list[Candidate], diagnoses: Mapping[str, Diagnosis | None]
                  ) -> list[str]:
    """`action@signature` for each repair in the lineage: what was tried on which error."""
    return [f"{c.repair_action}@{diagnoses[c.parent].signature}" for c in chain
            if c.repair_action and c.parent and diagnoses.get(c.parent)]
