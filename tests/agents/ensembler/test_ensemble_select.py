"""Adaptive ensemble selection on synthetic out-of-fold predictions (pure functions)."""

from __future__ import annotations

import numpy as np
import pytest

from pipesmith.agents.ensembler import select as es
from pipesmith.core.metrics import get_metric


def scorer(task_type: str, metric: str, classes=None) -> es.Scorer:
    m = get_metric(metric)
    return es.Scorer(task_type, m.score, m.greater_is_better, classes)


def noisy_regressors(n=600, seed=0):
    """Three members with independent errors: their average beats each of them."""
    rng = np.random.default_rng(seed)
    y = rng.normal(size=n)
    preds = np.stack([y + rng.normal(scale=s, size=n) for s in (0.5, 0.55, 0.6)])
    return preds, y


def test_caruana_with_replacement_averages_independent_errors():
    preds, y = noisy_regressors()
    s = scorer("regression", "r2")
    weights = es.caruana(preds, y, s)
    assert (weights > 0).sum() == 3  # every member earns a place
    assert s(y, es.combine(preds, weights)) > max(s(y, p) for p in preds) + 0.05


def test_caruana_can_pick_a_member_more_than_once():
    preds, y = noisy_regressors()
    preds[2] = y + np.random.default_rng(5).normal(scale=2.0, size=len(y))  # a poor member
    weights = es.caruana(preds, y, scorer("regression", "r2"))
    assert weights.max() >= 2 and weights[2] < weights[0]


def test_noise_members_get_no_weight():
    rng = np.random.default_rng(1)
    y = rng.normal(size=500)
    preds = np.stack([y + rng.normal(scale=0.3, size=500), rng.normal(size=500),
                      rng.normal(size=500)])
    choice = es.choose(preds, y, scorer("regression", "r2"))
    assert np.argmax(choice.weights) == 0 and choice.weights[0] / sum(choice.weights) > 0.8


def test_choice_is_an_ensemble_when_errors_are_independent():
    preds, y = noisy_regressors()
    choice = es.choose(preds, y, scorer("regression", "r2"))
    assert choice.strategy in ("caruana", "stacking")
    assert choice.nested_scores[choice.strategy] > choice.nested_scores["single"]


def test_stacking_wins_when_a_member_needs_rescaling():
    """A member that is right up to a scale factor: only a level-2 model can use it."""
    rng = np.random.default_rng(2)
    y = rng.normal(size=800)
    preds = np.stack([3.0 * y + rng.normal(scale=0.3, size=800),
                      y + rng.normal(scale=1.0, size=800)])
    choice = es.choose(preds, y, scorer("regression", "r2"))
    assert choice.strategy == "stacking"
    assert choice.nested_scores["stacking"] > choice.nested_scores["caruana"]
    # when stacking's fits do not fit in the time left, the best vote is chosen instead
    votes = es.choose(preds, y, scorer("regression", "r2"), strategies=("single", "caruana"))
    assert votes.strategy in ("single", "caruana") and "stacking" not in votes.nested_scores
    assert votes.nested_scores == {k: v for k, v in choice.nested_scores.items()
                                   if k != "stacking"}


def test_the_choice_is_judged_on_held_out_rows_only():
    """A member that memorised the rows (perfect on them) cannot fool the nested score:
    stacking fitted on all rows scores higher than what it scores held out."""
    rng = np.random.default_rng(3)
    y = rng.normal(size=300)
    preds = np.stack([y + rng.normal(scale=1.0, size=300) for _ in range(6)])
    s = scorer("regression", "r2")
    choice = es.choose(preds, y, s)
    fitted = es.fit_strategy("stacking", preds, y, s)
    in_sample = s(y, es.predict_strategy(fitted, preds, s))
    assert choice.nested_scores["stacking"] < in_sample


def test_classification_probabilities_and_classes_stay_aligned():
    rng = np.random.default_rng(4)
    classes = np.array(["a", "b", "c"])
    y = rng.choice(classes, size=450)
    onehot = (y[:, None] == classes[None, :]).astype(float)
    preds = np.stack([0.5 * onehot + 0.5 * rng.dirichlet(np.ones(3), size=450)
                      for _ in range(3)])
    s = scorer("classification", "accuracy", classes)
    choice = es.choose(preds, y, s)
    assert set(choice.nested_scores) == set(es.STRATEGIES)
    assert choice.nested_scores[choice.strategy] >= max(s(y, p) for p in preds) - 0.02
    auc = scorer("classification", "roc_auc", classes)
    assert es.choose(preds, y, auc).nested_scores["caruana"] > 0.8


def test_one_member_is_the_single_strategy():
    preds, y = noisy_regressors()
    choice = es.choose(preds[:1], y, scorer("regression", "r2"))
    assert choice.strategy == "single" and choice.weights == [1.0]


# --- clustering ---------------------------------------------------------------------------


def blobs(seed=0):
    from sklearn.datasets import make_blobs

    X, truth = make_blobs(n_samples=300, centers=3, cluster_std=1.0, random_state=seed)
    return X, truth


def test_consensus_recovers_the_shared_structure_of_noisy_clusterings():
    from sklearn.metrics import adjusted_rand_score

    X, truth = blobs()
    rng = np.random.default_rng(0)
    noisy = []
    for _ in range(5):  # each clustering relabels 20% of the rows at random
        lab = truth.copy()
        flip = rng.random(len(lab)) < 0.2
        lab[flip] = rng.integers(0, 3, flip.sum())
        noisy.append(rng.permutation(3)[lab])  # and permutes the label names
    merged = es.consensus(np.array(noisy), 3)
    assert adjusted_rand_score(truth, merged) > max(adjusted_rand_score(truth, n)
                                                    for n in noisy)


def test_consensus_on_a_sample_labels_every_row():
    X, truth = blobs()
    merged = es.consensus(np.array([truth, truth, truth]), 3, max_rows=50)
    from sklearn.metrics import adjusted_rand_score

    assert len(merged) == len(truth) and adjusted_rand_score(truth, merged) == pytest.approx(1)


def test_clustering_choice_prefers_a_stable_good_clustering_over_an_outlier():
    X, truth = blobs()
    rng = np.random.default_rng(1)
    bad = rng.integers(0, 3, len(truth))
    choice = es.choose_clustering(np.array([truth, truth, bad]), X)
    assert choice.strategy in ("single", "consensus")
    from sklearn.metrics import adjusted_rand_score

    assert adjusted_rand_score(truth, choice.labels) > 0.9
    assert choice.scores["single:2"]["combined"] < choice.scores["single:0"]["combined"]


def test_ensembler_chooses_for_clusterings_from_their_labels(tmp_path):
    """Two agreeing k-means clusterings and a random one: the choice is not the random one,
    and the proposal says how many clusters a consensus would make."""
    import pandas as pd
    from sklearn.cluster import KMeans

    from pipesmith.agents.ensembler.agent import Ensembler
    from pipesmith.agents.schemas import Attempt
    from tests.conftest import make_inputs

    inputs, _ = make_inputs(tmp_path, "iris", task_type="clustering")
    frame = pd.read_parquet(inputs.data_path)
    X = frame.drop(columns=[inputs.target]) if inputs.target in frame else frame
    rng = np.random.default_rng(0)
    labelings = [KMeans(n_clusters=3, n_init=3, random_state=s).fit_predict(X)
                 for s in (0, 1)] + [rng.integers(0, 3, len(X))]
    attempts = []
    for i, labels in enumerate(labelings, 1):
        folder = tmp_path / f"a{i}"
        folder.mkdir()
        np.savez(folder / "predictions.npz", y_pred=labels)
        attempts.append(Attempt(id=f"a{i}", parent=None, candidate=f"k{i}", phase="draft",
                                status="ok", score=0.5, workdir=str(folder)))
    proposal = Ensembler().propose(attempts, inputs)
    assert proposal is not None and proposal.strategy in ("single", "consensus")
    assert proposal.nested_scores["single:2"] < proposal.nested_scores["single:0"]
    if proposal.strategy == "single":
        assert proposal.weights[2] == 0.0
    else:
        assert proposal.n_clusters == 3


@pytest.mark.parametrize("labels", [["no", "yes", "maybe"], [2, 10, 7]])
def test_a_proposal_on_text_labels_is_scored_on_codes_with_the_same_result(tmp_path, labels):
    """The ensembler scores integer codes of the sorted classes (fast); the proposal is the
    one the labels themselves give, class weights keyed by the labels (numbers saved as
    text sort differently: those are scored as labels)."""
    from pipesmith.agents.ensembler import agent
    from pipesmith.agents.schemas import Attempt, RunInputs

    rng = np.random.default_rng(3)
    classes = np.sort(np.asarray(labels).astype(str))
    y = classes[rng.integers(0, 3, 400)]
    truth = (y[:, None] == classes[None, :]).astype(float)
    attempts = []
    for i, noise in enumerate((0.8, 0.9, 1.0), 1):
        proba = truth + rng.uniform(0, noise, truth.shape)
        folder = tmp_path / f"a{i}"
        folder.mkdir()
        np.savez(folder / "oof.npz", index=np.arange(400), y_true=y,
                 pred=classes[proba.argmax(1)], proba=proba / proba.sum(1, keepdims=True),
                 classes=classes)
        attempts.append(Attempt(id=f"a{i}", parent=None, candidate=f"c{i}", phase="draft",
                                status="ok", score=1.0 - noise, workdir=str(folder)))
    inputs = RunInputs(run_id="r", task_text="t", dataset="d", data_path="p", target="y",
                       task_type="classification", metric="balanced_accuracy", out_dir="o")
    proposal = agent.Ensembler().propose(attempts, inputs)
    preds = [agent.load_predictions(a) for a in attempts]
    by_label = es.choose(np.stack([p["proba"] for p in preds]), y,
                         scorer("classification", "balanced_accuracy", classes),
                         tune_metric="balanced_accuracy")
    assert proposal.nested_scores == by_label.nested_scores
    assert proposal.strategy == by_label.strategy and proposal.weights == by_label.weights
    if proposal.class_weights:
        assert set(proposal.class_weights) == set(classes.tolist())
    # a second choice among the votes reuses the nested scores
    votes = agent.Ensembler().propose(attempts, inputs, strategies=("single", "caruana"),
                                      nested=proposal.nested_scores)
    assert votes.nested_scores == {k: v for k, v in proposal.nested_scores.items()
                                   if not k.startswith("stacking")}
