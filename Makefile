# The two front-door commands: `make run` and `make test`. Both set up .venv first.
PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV   := .venv
BIN    := $(VENV)/bin

.PHONY: setup sandbox-tools run test lint bench clean bench-sandbox docker-engine docker-engine-stop

setup: $(VENV)/.installed sandbox-tools

# The local sandbox runs generated code only under bubblewrap (docs/sandbox.md): installed
# here when we can (root with apt), else one line says what to install.
sandbox-tools:
	@command -v bwrap >/dev/null 2>&1 || { \
	  if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
	    apt-get install -y -q bubblewrap >/dev/null 2>&1 || \
	    { apt-get update -q >/dev/null 2>&1 && apt-get install -y -q bubblewrap >/dev/null 2>&1; } || \
	    echo "pipesmith: could not install bubblewrap; run: apt-get install bubblewrap"; \
	  else \
	    echo "pipesmith: install bubblewrap for the sandbox (sudo apt-get install bubblewrap, dnf install bubblewrap, pacman -S bubblewrap), or use --sandbox docker"; \
	  fi; }

$(VENV)/.installed: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e ".[dev]"
	touch $@

run: setup  ## the main job: a full offline run on a bundled real dataset
	$(BIN)/pipesmith run --dataset breast_cancer --budget 60

test: setup  ## the whole test suite
	$(BIN)/python -m pytest -q -n 2 --dist loadfile --durations=30  # CI time is watched:
	# two test files at a time: a test mostly waits (on one single-threaded sandbox job, a
	# server, a timeout), so with one file at a time the cores sat idle

lint: setup
	$(BIN)/ruff check .

bench: setup  ## orchestration overhead of a run (prints figures)
	$(BIN)/python benchmarks/overhead.py
	$(BIN)/python benchmarks/llm_overhead.py

clean:
	rm -rf $(VENV) build dist *.egg-info runs

# --- sandbox (issue 9) ---
docker-engine:  ## a private Docker engine (no host networking) and the host-runtime image
	.ci/docker-engine.sh start && .ci/docker-engine.sh image

docker-engine-stop:
	.ci/docker-engine.sh stop

bench-sandbox: setup  ## launch overhead of each sandbox backend (docker when an engine answers)
	PIPESMITH_DOCKER_HOST=$${PIPESMITH_DOCKER_HOST:-$$(.ci/docker-engine.sh host)} $(BIN)/python benchmarks/sandbox_launch.py

# Evaluation harness (docs/evals.md)
.PHONY: eval-smoke topologies-doc
eval-smoke: setup  ## the CI eval: smoke suite, two topologies, the HGB baseline
	$(BIN)/pipesmith eval --suite smoke --topologies single-pass,self-repair --baselines hgb --out evals-out/smoke

topologies-doc: setup  ## regenerate docs/topologies.md from the compiled graphs
	$(BIN)/pipesmith topologies --write docs/topologies.md
