"""`pipesmith serve BUNDLE_OR_RUN`: the HTTP prediction service (app.py)."""
