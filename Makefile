# One entry point for developers, pre-commit and CI: `make run`, `make test`.
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
PORT ?= 8501
# `make run HOST=0.0.0.0` serves a live class on every interface (README, "Running a live
# class"); the default keeps the app on this machine.
HOST ?= localhost

.PHONY: run test test-browser test-slow test-toys lint format bench samples clean docs screenshots

# The stamp files depend on pyproject.toml, so editing dependencies re-installs.
$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

# `make run` installs the app's extra; the bare `pip install ldpcore` is the engine alone.
$(VENV)/.stamp-run: pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet -e ".[app]"
	touch $@

$(VENV)/.stamp-test: pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet -e ".[test]"
	touch $@ $(VENV)/.stamp-run

# `streamlit run app.py`, after importing the app's libraries (pages/app_layer/serving/launch.py):
# the first visitor to a fresh server then does not wait for them.
run: $(VENV)/.stamp-run
	$(BIN)/python -m pages.app_layer.serving.launch --server.address $(HOST) --server.port $(PORT) --server.headless true --browser.gatherUsageStats false

lint: $(VENV)/.stamp-test
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy
	$(BIN)/lint-imports

format: $(VENV)/.stamp-test
	$(BIN)/ruff format .
	$(BIN)/ruff check --fix .

# The quick tier: lint, then every test that needs no browser, no server and no long
# statistical run, on every core (pytest-xdist; its time here: benchmarks/README.md,
# "The test tiers"). pytest exits 5 when it collects nothing; a suite that runs no test
# fails here.
test: lint
	$(BIN)/python -m pytest -m "not browser and not slow" -n auto; rc=$$?; \
	if [ $$rc -eq 5 ]; then echo "error: pytest collected no tests"; exit 1; fi; exit $$rc

# The browser tier: the app served as `make run` serves it, driven by Debian's chromium
# (and protocol clients for a class); .ci/run runs it after the quick tier.
test-browser: $(VENV)/.stamp-test
	$(BIN)/python -m pytest -m browser

# The slow tier: full-size reproductions of the papers' claims and the long statistical
# checks (.ci/run runs it too), on every core like the quick tier: CI's whole run
# (quick, browser, slow and toys) must end within 90 minutes.
test-slow: $(VENV)/.stamp-test
	$(BIN)/python -m pytest -m slow -n auto

# The suite (without the browser and slow tiers) with the toy protocol, method and query
# kind in the real registries of every process (tests/toy_registry.py): it passes only
# if nothing else keeps a list of them.
test-toys: $(VENV)/.stamp-test
	LDPCORE_TEST_TOYS=1 PYTHONPATH=$(CURDIR)/tests/toys_site $(BIN)/python -m pytest -m "not browser and not slow" -q -n auto

# The documentation site, built offline into site/ in strict mode: a warning, a broken
# link or an anchor that is not there fails the build. The references and results pages
# are generated from the code and benchmarks/README.md as it builds (mkdocs.yml).
# The two variables silence banners the docs plugins print about MkDocs' future.
docs: $(VENV)/.stamp-test
	NO_MKDOCS_2_WARNING=1 DISABLE_MKDOCS_2_WARNING=true $(BIN)/python -m mkdocs build --strict --quiet
	@echo "the site is in site/ (open site/index.html)"

# The pictures of the app in the site (docs/assets/screens/, kept in git): the app served
# as `make run` serves it, each page opened in Debian's chromium. The browser tier checks
# that they still match the app.
screenshots: $(VENV)/.stamp-test
	$(BIN)/python -m devtools.screenshots

bench: $(VENV)/.stamp-test
	$(BIN)/python benchmarks/bench_samplers.py
	$(BIN)/python benchmarks/bench_postprocess.py
	$(BIN)/python benchmarks/bench_cli.py
	$(BIN)/python benchmarks/bench_cluster.py
	$(BIN)/python benchmarks/bench_choose_epsilon.py

# Rebuild the bundled datasets; needs Debian's unicode-data for the emoji groups.
samples: $(VENV)/.stamp-run
	test -f /usr/share/unicode/emoji/emoji-test.txt || (apt-get update && apt-get install -y unicode-data)
	$(BIN)/python -m pip install --quiet -e ".[data]"
	$(BIN)/python sample_data/make_samples.py

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache build site *.egg-info
