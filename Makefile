# posenc: the two quick-start commands are `make report` and `make test`; each sets everything up first.
.PHONY: setup report test test-slow test-hours test-all test-latest test-oldest test-paths lock lint bench mutate

VENV := .venv
BIN := $(VENV)/bin
OUT ?= posenc-report

setup:
	./scripts/setup.sh

## the main job: the evidence report on the offline defaults (quick mode)
report: setup
	$(BIN)/posenc report --quick --out $(OUT)

## the test suite (slow experiments excluded; `make test-slow` runs them alone but for the one that runs the full
## report, `make test-hours` that one, `make test-all` every test; CI runs `make test` and `make test-slow`)
test: setup
	$(BIN)/python -m pytest -m "not slow" -n 2 --dist loadgroup -q

test-slow: setup
	$(BIN)/python -m pytest -m "slow and not hours" -n 2 --dist loadgroup -q

test-hours: setup
	$(BIN)/python -m pytest -m hours -n 2 --dist loadgroup -q

test-all: setup
	$(BIN)/python -m pytest -n 2 --dist loadgroup -q

## the Hugging Face, kernel and report-number tests on the newest release of every dependency (no constraints.txt)
test-latest:
	./scripts/test_versions.sh latest

## the same tests on the floor of every range in pyproject.toml
test-oldest:
	./scripts/test_versions.sh oldest

## the numeric tests under torch's, numpy's and the BLAS libraries' other code paths and 1 and 2 threads (docs/testing.md)
test-paths: setup
	./scripts/test_paths.sh

## regenerate constraints.txt (the versions `make setup` installs) with uv; then run `make test` and commit both
lock: setup
	./scripts/lock.sh

lint:
	$(BIN)/ruff check src tests benchmarks
	$(BIN)/lint-imports

bench:
	$(BIN)/posenc bench

## mutation testing of the result-bearing modules on a seeded sample (docs/testing.md); MODULES="posenc.x ..." SAMPLE=N
mutate: setup
	$(BIN)/python scripts/mutate.py $(MODULES) $(if $(SAMPLE),--sample $(SAMPLE))
