"""The patch functions of the repair rule table (agents/repairs.py), one module per family."""
