"""The ensembler: best single model, Caruana selection or stacking chosen by nested CV on
out-of-fold predictions (select.py), class-weighted decisions for balanced metrics
(decision.py), ensembles composed from the members' exact code (compose.py)."""
