"""Shipping a finished run: the deployment bundle (bundle.py and its parts: requirements,
Dockerfile, pipeline.yaml spec, model card, MLflow model, the bundle's predict.py) and
`run --mlflow-dir` tracking."""
