"""Repair: the rule table (table.py: which patch answers which failure), the patches by
family (patches/), and the RepairRequest built from a failure's lineage (reformulate.py)."""
