PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.install-stamp

.PHONY: install lint test run bench clean

install: $(STAMP)

# a .venv whose Python is gone (uninstalled, upgraded away) is made anew: its stamp stood, and
# run and test failed with "cannot execute: required file not found"
ifneq ($(wildcard $(STAMP)),)
ifeq ($(filter clean,$(MAKECMDGOALS)),)
ifneq ($(shell $(BIN)/python -c 'print("ok")' 2>/dev/null),ok)
$(info $(VENV)'s Python does not run: making $(VENV) again)
$(shell rm -f $(STAMP))
endif
endif
endif

# the solver's C core is compiled by the install: a change to it (or to the
# training run of its profile-guided build) installs again
CORE := $(wildcard flowerbridge/solver/_core*.c) flowerbridge/solver/_pgo_train.py

# setuptools as pyproject.toml asks for it, in the venv too: the quick rebuild of the core
# (`.venv/bin/python setup.py build_ext --inplace`, docs/solver.md) runs with the venv's own
$(STAMP): pyproject.toml setup.py $(CORE)
	@$(BIN)/python -c '' 2>/dev/null || rm -rf $(VENV)
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --upgrade pip "setuptools>=77"
	$(BIN)/pip install -e '.[test]'
	@$(BIN)/python -c "from flowerbridge.solver import _core; print('solver core:', \
		'profile-guided build' if _core.PROFILE_GUIDED else \
		'plain build (the profile-guided one fell back or was skipped: docs/solver.md, Build)')"
	touch $(STAMP)

# style and mistakes (ruff) and types (mypy), configured in pyproject.toml
lint: install
	$(BIN)/ruff check flowerbridge tests benchmarks
	$(BIN)/mypy

# on every CPU this process may use (pytest-xdist; tests/conftest.py says which tests
# share a worker)
test: install lint
	$(BIN)/python -m pytest -n auto

# the server, on PORT (make run PORT=8001: 8000 is many tools' default; set here, not read
# from the environment, where hosting services set PORT for their own). Ctrl+C is how it
# stops: its status 130 is no failure here (make said "Error 130", as if it had crashed);
# bash, whose wait for a child that handles Ctrl+C itself goes on after it (sh is
# interrupted with it, and make said "Interrupt")
PORT := 8000
run: SHELL := /bin/bash
run: install
	$(BIN)/flowerbridge serve --port $(PORT) || { status=$$?; [ $$status -eq 130 ] || exit $$status; }

# every benchmark but bench_solver_ab.py, which compares this build with
# another one named on its command line
bench: install
	for b in $(filter-out benchmarks/bench_solver_ab.py,$(wildcard benchmarks/bench_*.py)); do \
		$(BIN)/python $$b || exit 1; done

clean:
	rm -rf $(VENV) build *.egg-info .mypy_cache .ruff_cache
