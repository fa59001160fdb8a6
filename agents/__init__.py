"""The six agents (planner, coder, pre-validator, executor, diagnostician, ensembler)
and the frozen schemas they exchange."""
