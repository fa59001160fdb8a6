"""The user's own code: `pipesmith repair FILE` (repair.py, the graph's repair loop) and
`pipesmith validate FILE` (validate.py, the pre-validator's verdict)."""
