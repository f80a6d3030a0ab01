# Two commands on a fresh machine: `make demo` and `make test`. Each sets up what it needs, every time; the
# environments are rebuilt only when their dependency specification changed (make's own timestamps).
PYTHON ?= python3
VENV := .venv
RT_VENV := .venv-runtime
BENCH_VENV := .venv-bench
DEMO_VENV := .venv-demo
PY := $(VENV)/bin/python
RT_PY := $(RT_VENV)/bin/python
PIP_FLAGS := --disable-pip-version-check --no-input --quiet

.PHONY: demo test lint typecheck pytest pytest-runtime setup setup-runtime setup-demo bench bench-peers soak format clean

setup: $(VENV)/.installed

$(VENV)/.installed: pyproject.toml
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install $(PIP_FLAGS) --upgrade "pip>=24"
	$(PY) -m pip install $(PIP_FLAGS) -e ".[dev]"
	touch $@

# agentscope-runtime's MemoryService needs agentscope<1.0.12, which cannot live beside AgentScope 2.x.
setup-runtime: $(RT_VENV)/.installed

$(RT_VENV)/.installed: pyproject.toml requirements/agentscope-runtime.txt
	test -x $(RT_PY) || $(PYTHON) -m venv $(RT_VENV)
	$(RT_PY) -m pip install $(PIP_FLAGS) --upgrade "pip>=24"
	$(RT_PY) -m pip install $(PIP_FLAGS) -r requirements/agentscope-runtime.txt -e .
	touch $@

# The demo needs the core only: its own venv with `pip install -e .` (no extras, no dev tools).
setup-demo: $(DEMO_VENV)/.installed

$(DEMO_VENV)/.installed: pyproject.toml
	test -x $(DEMO_VENV)/bin/python || $(PYTHON) -m venv $(DEMO_VENV)
	$(DEMO_VENV)/bin/python -m pip install $(PIP_FLAGS) --upgrade "pip>=24"
	$(DEMO_VENV)/bin/python -m pip install $(PIP_FLAGS) -e .
	touch $@

demo: setup-demo
	$(DEMO_VENV)/bin/python examples/quickstart.py

lint: setup
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .

typecheck: setup
	$(VENV)/bin/mypy

pytest: setup
	$(PY) -m pytest tests --ignore=tests/agentscope_runtime -q

pytest-runtime: setup-runtime
	$(RT_PY) -m pytest tests/agentscope_runtime -q -p no:cacheprovider

test: lint typecheck pytest pytest-runtime

format: setup
	$(VENV)/bin/ruff format .
	$(VENV)/bin/ruff check --fix .

bench: setup
	$(PY) benchmarks/latency.py --quick
	$(PY) benchmarks/locomo.py --quick
	$(PY) benchmarks/scale.py --quick

# The peers (mem0, langchain-qdrant, agentscope-runtime) conflict with the dev environment: their own venv.
$(BENCH_VENV)/.installed: pyproject.toml requirements/bench.txt requirements/agentscope-runtime.txt
	test -x $(BENCH_VENV)/bin/python || $(PYTHON) -m venv $(BENCH_VENV)
	$(BENCH_VENV)/bin/python -m pip install $(PIP_FLAGS) --upgrade "pip>=24"
	$(BENCH_VENV)/bin/python -m pip install $(PIP_FLAGS) -r requirements/bench.txt -e .
	touch $@

bench-peers: $(BENCH_VENV)/.installed
	$(BENCH_VENV)/bin/python benchmarks/peers.py --quick

soak: setup
	MEMADAPT_SOAK=1 $(PY) -m pytest tests/reliability -q -m soak -s

clean:
	rm -rf $(VENV) $(RT_VENV) $(BENCH_VENV) $(DEMO_VENV) .mypy_cache .ruff_cache .pytest_cache
