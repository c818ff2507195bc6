# Two commands: `make demo` and `make test`. Both create .venv and install on first use.
PYTHON ?= python3.11
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: demo test explore bench clean

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	touch $(STAMP)

demo: $(STAMP)
	$(BIN)/sparkwire demo

test: $(STAMP)
	$(BIN)/python -m pytest -q --durations=25

# Property tests with fresh random examples (``make test`` draws the same ones every run).
explore: $(STAMP)
	HYPOTHESIS_PROFILE=explore $(BIN)/python -m pytest -q -p no:cacheprovider $$(grep -rl "from hypothesis" tests)

bench: $(STAMP)
	$(BIN)/python -m benchmarks

clean:
	rm -rf $(VENV) build *.egg-info benchmarks/results/*.json benchmarks/results/*.png benchmarks/results/*.md
