"""Bootstrap confidence intervals: hand-computable cases and a fixed seed."""

from __future__ import annotations

from pipesmith.evals.bootstrap import bootstrap_ci, fmt_ci


def test_interval_of_a_hand_computable_case():
    # Four jobs, one success: a resample's mean is k/4 with k ~ Binomial(4, 1/4).
    # P(k = 0) = 0.316 > 2.5%, so the low end is 0; P(k <= 2) = 0.949 and
    # P(k <= 3) = 0.996 straddle 97.5%, so the high end is 3/4.
    assert bootstrap_ci([0, 0, 0, 1]) == (0.25, 0.0, 0.75)
    # and the mirror image: P(k <= 1) = 0.051 for k ~ Binomial(4, 3/4)
    assert bootstrap_ci([1, 1, 1, 0]) == (0.75, 0.25, 1.0)


def test_constant_values_have_no_width_and_nothing_has_no_interval():
    assert bootstrap_ci([0.9] * 5) == (0.9, 0.9, 0.9)
    assert bootstrap_ci([]) is None
    assert fmt_ci(None) == "—"


def test_the_same_rows_give_the_same_interval():
    values = [0.1, 0.5, 0.7, 0.2, 0.9, 0.4]
    first = bootstrap_ci(values)
    assert bootstrap_ci(values) == first
    mean, low, high = first
    assert low < mean < high
    assert bootstrap_ci(values, seed=1) != first  # the interval comes from the seeded draws
    assert fmt_ci((11 / 12, 10 / 12, 1.0)) == "0.917 [0.833, 1.000]"
