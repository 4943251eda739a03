# Two entry points on a fresh machine (see README.md): `make demo` and `make test`.
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
PIP := $(BIN)/python -m pip install --quiet --disable-pip-version-check
export HF_HUB_OFFLINE := 1
export TRANSFORMERS_OFFLINE := 1

.PHONY: demo test install install-test bench clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)

# The base install: numpy, scipy, sacrebleu, rich; the shipped NLI model runs on onnxruntime.
install: $(BIN)/python
	$(PIP) -e '.[nli]'

demo: install
	$(BIN)/diveval score examples/responses.txt
	$(BIN)/diveval score examples/sets.jsonl

# torch is installed first and pinned: an unpinned torch pulls a several-GB CUDA build.
install-test: $(BIN)/python
	$(PIP) torch==2.13.0
	$(PIP) -e '.[all,test]'

test: install-test
	$(BIN)/python -m pytest -q

clean:
	rm -rf $(VENV) build *.egg-info src/*.egg-info
