"""What every door shares: a run's inputs (inputs.py), its folder (run_folder.py) and graph
driver (driver.py); the referee, metrics, datasets, model I/O, the report and the
reliability score."""
