"""Search: Optuna over learner x hyperparameters with successive halving (runner.py) on
persistent trial workers (trial_pool.py), spaces (space.py) checked against the installed
estimators (space_check.py), the learned portfolio (data/portfolio.json), and a model's
proposal in LLM mode (llm.py)."""
