"""A vote whose cost does not fit is made smaller, on nested evidence (Ensembler.fitting_vote)."""

from __future__ import annotations

import numpy as np

from pipesmith.agents.ensembler.agent import Ensembler
from pipesmith.agents.ensembler.compose import VOTES
from pipesmith.agents.schemas import Attempt
from tests.graph.test_routing import state


def _members(tmp_path, noise: dict[str, float], wall: dict[str, float]) -> list[Attempt]:
    """Regression members: the truth plus independent noise (so a vote of several beats
    any one), each with its out-of-fold predictions stored as the referee stores them."""
    rng = np.random.default_rng(0)
    y = rng.normal(size=400)
    out = []
    for aid, sd in noise.items():
        folder = tmp_path / aid
        folder.mkdir()
        pred = y + rng.normal(scale=sd, size=y.size)
        np.savez(folder / "oof.npz", y_true=y, pred=pred)
        score = 1 - np.mean((y - pred) ** 2) / np.var(y)
        out.append(Attempt(id=aid, parent=None, candidate=aid, phase="draft", status="ok",
                           score=score, wall_s=wall[aid], workdir=str(folder)))
    return out


def _proposed(tmp_path, noise: dict[str, float], wall: dict[str, float]):
    """The members, the inputs, an ensembler and its vote of the whole pool."""
    attempts = _members(tmp_path, noise, wall)
    inputs, ensembler = state()["inputs"], Ensembler()
    return attempts, inputs, ensembler, ensembler.propose(attempts, inputs, strategies=VOTES)


def _weighted(proposal) -> set[str]:
    return set(proposal.weighted_members)


def test_the_costliest_members_are_left_out_until_the_vote_fits(tmp_path):
    attempts, inputs, ensembler, whole = _proposed(
        tmp_path, {"a1": 0.5, "a2": 0.5, "a3": 0.5, "a4": 0.5},
        {"a1": 2.0, "a2": 3.0, "a3": 1.0, "a4": 9.0})
    assert whole.strategy != "single" and _weighted(whole) == {"a1", "a2", "a3", "a4"}
    # only a vote of two fits: a4 (9 s), then a2 (3 s) are left out
    smaller = ensembler.fitting_vote(attempts, inputs, whole, lambda p: len(_weighted(p)) <= 2)
    assert smaller.left_out == ["a4", "a2"] and _weighted(smaller) == {"a1", "a3"}
    assert smaller.strategy != "single"  # a vote or a stacking
    assert smaller.estimated_score > whole.nested_scores["single"]
    # three fit: a4 alone is left out
    three = ensembler.fitting_vote(attempts, inputs, whole, lambda p: len(_weighted(p)) <= 3)
    assert three.left_out == ["a4"] and _weighted(three) == {"a1", "a2", "a3"}
    # nothing fits: no vote, and no proposal made to learn it (a vote of the two cheapest
    # members is the only one costed)
    asked = []
    assert ensembler.fitting_vote(attempts, inputs, whole,
                                  lambda p: asked.append(p.members) and False) is None
    assert asked == [["a3", "a1"]]


def test_a_smaller_vote_must_beat_the_best_single_model_of_the_whole_pool(tmp_path):
    # a1 is far better and the costliest: the vote of the others loses to it alone
    attempts, inputs, ensembler, whole = _proposed(
        tmp_path, {"a1": 0.3, "a2": 0.7, "a3": 0.7, "a4": 0.7},
        {"a1": 9.0, "a2": 1.0, "a3": 1.0, "a4": 1.0})
    assert whole.strategy != "single" and "a1" in _weighted(whole)
    assert len(_weighted(whole)) > 2
    others = ensembler.propose(attempts[1:], inputs, strategies=VOTES)
    assert others.strategy != "single"  # among the others, a combination wins ...
    assert others.estimated_score < whole.nested_scores["single"]  # ... but not against a1
    assert ensembler.fitting_vote(attempts, inputs, whole, lambda p: "a1" not in p.members) \
        is None


def test_when_no_vote_fits_the_best_single_keeps_its_class_weighted_decisions(tmp_path):
    """A rare class that the members' probabilities underrate: balanced accuracy prefers
    the best model with class weights; it fits nothing, so it is left when no vote fits."""
    rng = np.random.default_rng(0)
    y = (rng.random(600) < 0.1).astype(int)
    attempts = []
    for aid, sd, wall in (("a1", 0.10, 9.0), ("a2", 0.14, 1.0)):
        folder = tmp_path / aid
        folder.mkdir()
        p1 = np.clip(0.25 * y + rng.normal(0.05, sd, y.size), 0.001, 0.999)  # underrated
        np.savez(folder / "oof.npz", y_true=y, pred=(p1 > 0.5).astype(int),
                 proba=np.column_stack([1 - p1, p1]), classes=np.array([0, 1]))
        attempts.append(Attempt(id=aid, parent=None, candidate=aid, phase="draft",
                                status="ok", score=0.5, wall_s=wall, workdir=str(folder)))
    inputs = state()["inputs"].model_copy(update={"task_type": "classification",
                                                  "metric": "balanced_accuracy"})
    ensembler = Ensembler()
    whole = ensembler.propose(attempts, inputs, strategies=VOTES)
    nested = whole.nested_scores
    assert nested["single+class_weights"] > nested["single"] + 0.2
    assert ensembler.fitting_vote(attempts, inputs, whole, lambda p: False) is None
    weighted = ensembler.weighted_single(attempts, inputs, whole)
    assert weighted.strategy == "single" and weighted.builds
    assert len(weighted.weighted_members) == 1  # one model: no fit of its own
    assert weighted.class_weights["1"] > weighted.class_weights["0"]  # the rare class up
    # plain decisions that nested cross-validation prefers: nothing to propose
    plain = whole.model_copy(update={"nested_scores": {**nested, "single": 1.0}})
    assert ensembler.weighted_single(attempts, inputs, plain) is None


def _clusterings(tmp_path, noise: list[float]) -> tuple[list[Attempt], object]:
    """Clusterings of three blobs, each the truth with a share of its rows relabelled at
    random (the best first), stored as the referee stores them; and clustering inputs."""
    import pandas as pd
    from sklearn.datasets import make_blobs

    features, truth = make_blobs(n_samples=300, centers=3, cluster_std=1.5, random_state=0)
    data = tmp_path / "blobs.parquet"
    pd.DataFrame(features, columns=["x0", "x1"]).to_parquet(data)
    rng = np.random.default_rng(0)
    out = []
    for n, share in enumerate(noise, start=1):
        labels = truth.copy()
        flipped = rng.random(labels.size) < share
        labels[flipped] = rng.integers(0, 3, size=int(flipped.sum()))
        folder = tmp_path / f"a{n}"
        folder.mkdir()
        np.savez(folder / "oof.npz", pred=labels)
        out.append(Attempt(id=f"a{n}", parent=None, candidate=f"a{n}", phase="draft",
                           status="ok", score=0.5, wall_s=1.0, workdir=str(folder)))
    inputs = state()["inputs"].model_copy(update={
        "task_type": "clustering", "metric": "silhouette", "data_path": str(data),
        "target": None})
    return out, inputs


def test_a_consensus_that_does_not_fit_keeps_the_best_clusterings_that_fit(tmp_path):
    """A consensus runs its members again: when all of them do not fit, the consensus of
    the best few (by their own combined index) does, while it beats the best single one."""
    attempts, inputs = _clusterings(tmp_path, [0.05, 0.15, 0.25, 0.3, 0.35, 0.4])
    ensembler = Ensembler()
    whole = ensembler.propose(attempts, inputs)
    assert whole.strategy == "consensus" and len(whole.members) == 6
    smaller = ensembler.fitting_vote(attempts, inputs, whole, lambda p: len(p.members) <= 3)
    best_single = max(v for k, v in whole.nested_scores.items() if k.startswith("single:"))
    assert smaller is not None and smaller.strategy == "consensus"
    assert smaller.members == ["a1", "a2", "a3"] and smaller.left_out == ["a4", "a5", "a6"]
    assert smaller.estimated_score > best_single
    assert ensembler.fitting_vote(attempts, inputs, whole, lambda p: False) is None
