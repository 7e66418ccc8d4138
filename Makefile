# cpulab: set-up, the lab's main job, and the tests.
# `make lab` and `make test` do all set-up themselves; a second call repeats none of it.

PROFILE ?= default
UV := $(shell command -v uv 2>/dev/null || echo $(HOME)/.local/bin/uv)
# The calling shell's PATH, before the line below adds uv's folder to make's own.
CALLER_PATH := $(PATH)
export PATH := $(HOME)/.local/bin:$(PATH)

.PHONY: lab test quick setup lint
.DEFAULT_GOAL := lab

# uv lands in ~/.local/bin, which a new shell's PATH may lack: say the line that adds it.
setup: .stamps/system .venv/.synced
	@native/lib/gzwrap/tools/build_isal_stops.sh >/dev/null || \
	  echo "setup: gzwrap's ISA-L that stops at block boundaries could not be built;" \
	       "gzwrap joins gzip members by walking their blocks (slower, the same output)"
	@env PATH='$(CALLER_PATH)' sh -c 'command -v uv' >/dev/null || { \
	  echo "setup: uv is in ~/.local/bin, which this shell's PATH lacks; ./cpulab finds it," \
	       "and \`uv run cpulab\` needs this line (in ~/.bashrc to keep it):"; \
	  echo 'export PATH=$$HOME/.local/bin:$$PATH'; }

.stamps/system: scripts/setup-system scripts/packages.txt
	@scripts/setup-system
	@mkdir -p .stamps && touch $@

.venv/.synced: pyproject.toml uv.lock .stamps/system
	@uv sync --frozen --quiet
	@touch $@

# PROFILE: quick, default (every experiment in ~25 minutes on 2 cores) or full (the long sweeps)
lab: setup
	@uv run --frozen cpulab run --all --profile $(PROFILE)

# CPULAB_FULL=1 make test adds the long real runs (tests/conftest.py). pytest's status 5,
# no test selected (PYTEST_ARGS="-m full" where no full test can run), is no failure.
# One test worker per CPU (TEST_JOBS=0: none, in this process), each taking the next test
# when done: what two workers need built is built by one while the other waits.
TEST_JOBS ?= auto
test: setup
	@uv run --frozen pytest -q -n $(TEST_JOBS) --dist worksteal $(PYTEST_ARGS) || [ $$? -eq 5 ]

lint: setup
	@uv run --frozen ruff check src tests scripts
