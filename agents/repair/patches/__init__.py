"""The patch functions of the repair rule table (agents/repair/table.py), one module per family."""
