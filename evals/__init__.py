"""Evaluation harness: dataset suites, topology comparisons and baselines (evaluation issue)."""
