"""The coder: candidate modules rendered from templates/ (agent.py, offline) or written by a
model (llm.py), repairs applied from the rule table, and fault injection for research
(faults.py)."""
