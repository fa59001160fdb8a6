"""Model families: one record per learner (registry.py) read by the planner, coder, search,
resource predictor and fault injector; which backends are installed (backends.py)."""
