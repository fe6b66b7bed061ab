# The two commands of the README: `make run` starts the bot, `make test` runs every check.
# Both create the virtual environment on a fresh machine first; `make test` also installs what the
# tests need from the system (PostgreSQL's server, Chromium: .ci/system-packages).
PY ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
# Every version installed, dependencies' dependencies too: a pip constraints file (`make lock`).
LOCK := requirements.lock
# The packages `mypy --strict` checks (add each product package here as it passes).
TYPED := scoring locales bot handlers

.PHONY: run test checks system lint typecheck pytest bench sheets screenshots lock clean

# pip and setuptools first, at the locked versions; then the project with no build isolation, so
# that its build uses the locked setuptools too and nothing is installed from outside the lock.
# Then the product's bytecode, once: an editable install leaves it to the first import, and where
# PYTHONDONTWRITEBYTECODE is set (many a shell and CI) every process would compile every module
# again, a good part of a `python -m scoring replay` (docs/benchmarks.md).
$(STAMP): pyproject.toml $(LOCK)
	$(PY) -m venv $(VENV)
	$(BIN)/pip install --quiet -c $(LOCK) --upgrade pip setuptools
	$(BIN)/pip install --quiet -c $(LOCK) --no-build-isolation -e '.[dev,redis]'
	$(BIN)/python -m compileall -q $(TYPED)
	touch $(STAMP)

# Regenerate the lock: a fresh virtual environment from pyproject.toml alone (newest versions its
# pins allow), frozen. Run it after changing a dependency, and commit the result.
LOCK_VENV := .venv-lock
lock:
	rm -rf $(LOCK_VENV)
	$(PY) -m venv $(LOCK_VENV)
	$(LOCK_VENV)/bin/pip install --quiet --upgrade pip setuptools
	$(LOCK_VENV)/bin/pip install --quiet --no-build-isolation -e '.[dev,redis]'
	{ echo "# Every version that make run and make test install (pip constraints); make lock regenerates it."; \
	  $(LOCK_VENV)/bin/pip freeze --all --exclude-editable; } > $(LOCK)
	rm -rf $(LOCK_VENV)

run: $(STAMP)
	$(BIN)/python -m bot

# The total time is printed at the end (issue 35: at most 8 minutes on a fresh 2-core machine,
# the system packages and the virtual environment included).
test:
	@start=$$(date +%s); $(MAKE) --no-print-directory checks; status=$$?; \
	echo "make test: $$(( $$(date +%s) - start )) s in all (exit status $$status)"; exit $$status

checks: system lint typecheck pytest

system:
	bash .ci/system-packages

# The code, the Dockerfile (hadolint), and docker-compose.yml against the Compose Specification's
# schema, interpolated as compose does (tests/deploy/compose_lint.py: there is no compose plugin).
lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/hadolint Dockerfile
	$(BIN)/python -m tests.deploy.compose_lint docker-compose.yml

typecheck: $(STAMP)
	$(BIN)/mypy --strict $(TYPED)

# The bytecode brought up to date first (only what changed is compiled): the end-to-end tests start
# the bot dozens of times, and under PYTHONDONTWRITEBYTECODE a stale module is compiled at each start.
# PYTEST_JOBS workers (pytest-xdist), one a core by default (4 on 2 cores measured no faster);
# each module runs on one worker, which starts its shared bot process once.
PYTEST_JOBS ?= auto
pytest: $(STAMP)
	$(BIN)/python -m compileall -q $(TYPED)
	$(BIN)/python -m pytest -q -n $(PYTEST_JOBS) --dist loadscope

bench: $(STAMP)
	for script in bench/*_bench.py; do echo "== $$script"; $(BIN)/python $$script || exit 1; done

sheets: $(STAMP)
	$(BIN)/python bench/sheets.py docs/img

screenshots: $(STAMP)
	PREFBOT_SCREENSHOTS=docs/img $(BIN)/python -m pytest -q tests/e2e/test_miniapp_e2e.py tests/e2e/test_miniapp_tabs_e2e.py

clean:
	rm -rf $(VENV) $(LOCK_VENV) .pytest_cache .mypy_cache .ruff_cache
