"""The pre-validator: static checks before a candidate spends a sandbox run (agent.py runs
them): syntax and contract, imports and installed APIs (static_checks, type_flow),
dependency conflicts, data and neural checks, capabilities vs data, and the resource
prediction (resources.py)."""
