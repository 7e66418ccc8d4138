# cpulab: set-up, the lab's main job, and the tests.
# `make lab` and `make test` do all set-up themselves; a second call repeats none of it.

PROFILE ?= default
UV := $(shell command -v uv 2>/dev/null || echo $(HOME)/.local/bin/uv)
export PATH := $(HOME)/.local/bin:$(PATH)

.PHONY: lab test quick setup lint
.DEFAULT_GOAL := lab

setup: .stamps/system .venv/.synced

.stamps/system: scripts/setup-system scripts/packages.txt
	@scripts/setup-system
	@mkdir -p .stamps && touch $@

.venv/.synced: pyproject.toml uv.lock .stamps/system
	@uv sync --frozen --quiet
	@touch $@

lab: setup
	@uv run --frozen cpulab run --all $(if $(filter quick,$(PROFILE)),--quick)

test: setup
	@uv run --frozen pytest -q $(PYTEST_ARGS)

lint: setup
	@uv run --frozen ruff check src tests
