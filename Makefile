# The two commands of the README: `make run` starts the bot, `make test` runs every check.
# Both create the virtual environment on a fresh machine first.
PY ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
# The packages `mypy --strict` checks (add each product package here as it passes).
TYPED := scoring locales bot handlers

.PHONY: run test lint typecheck pytest bench sheets clean

$(STAMP): pyproject.toml
	$(PY) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e '.[dev]'
	touch $(STAMP)

run: $(STAMP)
	$(BIN)/python -m bot

test: lint typecheck pytest

lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

typecheck: $(STAMP)
	$(BIN)/mypy --strict $(TYPED)

pytest: $(STAMP)
	$(BIN)/python -m pytest -q

bench: $(STAMP)
	for script in bench/*_bench.py; do echo "== $$script"; $(BIN)/python $$script || exit 1; done

sheets: $(STAMP)
	$(BIN)/python bench/sheets.py docs/img

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache
