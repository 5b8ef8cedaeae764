PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.install-stamp

.PHONY: install test run bench clean

install: $(STAMP)

$(STAMP): pyproject.toml setup.py
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --upgrade pip
	$(BIN)/pip install -e '.[test]'
	touch $(STAMP)

test: install
	$(BIN)/python -m pytest

run: install
	$(BIN)/flowerbridge serve

# every benchmark but bench_solver_ab.py, which compares this build with
# another one named on its command line
bench: install
	for b in $(filter-out benchmarks/bench_solver_ab.py,$(wildcard benchmarks/bench_*.py)); do \
		$(BIN)/python $$b || exit 1; done

clean:
	rm -rf $(VENV) build *.egg-info
