# Two commands: `make demo` and `make test`. Both create .venv and install on first use.
PYTHON ?= python3.11
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: demo test explore bench coverage typecheck browser clean

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	touch $(STAMP)

demo: $(STAMP)
	$(BIN)/sparkwire demo

# The type checker first (23 s cold on 2 cores): a type error fails before the suite. The
# suite runs on two pytest-xdist workers (CI has 2 cores, and one run alone keeps 1.45 of them
# busy: two save about 29%, 1,035 -> 735 s): a module's tests stay on one worker, the Spark
# modules together on one, first (tests/conftest.py). A crashed worker ends the run at once
# (xdist hung for good rescheduling after two crashes in one module).
test: typecheck browser
	$(BIN)/python -m pytest -q -n 2 --dist loadfile --max-worker-restart=0 --durations=25

# The live UI's browser test (tests/ui/test_browser.py) drives the OS's Chromium through
# Playwright (the dev extra); never a downloaded browser. Installed from Debian's packages when
# missing and this machine allows (root, apt-get); otherwise the test skips and says why.
# Never fails the target: the rest of the suite runs either way.
browser:
	@command -v chromium >/dev/null 2>&1 || command -v chromium-browser >/dev/null 2>&1 || \
	  { [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1 && \
	    { timeout 240 apt-get install -y -q chromium >/dev/null 2>&1 || \
	      { timeout 60 apt-get update -q >/dev/null 2>&1 && \
	        timeout 240 apt-get install -y -q chromium >/dev/null 2>&1; }; }; } || \
	  echo "Chromium is missing and cannot be installed here: the UI's browser test will skip"

# Property tests with fresh random examples (``make test`` draws the same ones every run).
explore: $(STAMP)
	HYPOTHESIS_PROFILE=explore $(BIN)/python -m pytest -q -p no:cacheprovider $$(grep -rl "from hypothesis" tests)

bench: $(STAMP)
	$(BIN)/python -m benchmarks

# How much of PySpark's API works, is refused (with the reason) or is missing: a report, not a
# benchmark (nothing is timed), and it needs PySpark (the dev extra has it) to list the names.
coverage: $(STAMP)
	$(BIN)/sparkwire coverage

# transport/, coordinator/ and planner/ become sparkwire.* only through setuptools'
# package-dir mapping, which mypy cannot follow: it checks a throwaway tree of symlinks shaped
# like the installed package (transport/ under strict flags, the rest under mypy's defaults;
# see [tool.mypy] in pyproject.toml). `-p sparkwire` takes in all three folders; naming them
# besides it makes mypy see each module twice ("Duplicate module named").
typecheck: $(STAMP)
	rm -rf build/typecheck/sparkwire
	mkdir -p build/typecheck/sparkwire
	ln -s $(CURDIR)/sparkwire/*.py $(CURDIR)/sparkwire/py.typed build/typecheck/sparkwire/
	ln -s $(CURDIR)/transport $(CURDIR)/coordinator $(CURDIR)/planner build/typecheck/sparkwire/
	cd build/typecheck && $(CURDIR)/$(BIN)/python -m mypy --config-file $(CURDIR)/pyproject.toml -p sparkwire

clean:
	rm -rf $(VENV) build *.egg-info benchmarks/results/*.json benchmarks/results/*.png benchmarks/results/*.md
