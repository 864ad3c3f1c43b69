# The two commands of the README:
#   make serve   install into .venv, migrate, serve http://127.0.0.1:8000 (SQLite, in-memory layer)
#   make test    install into .venv (and Debian's chromium-headless-shell), run the whole test suite
# DATABASE_URL and REDIS_URL switch both to PostgreSQL and Redis.

PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: serve test install lint browser-deps catalogues

# Some machines set PYTHONDONTWRITEBYTECODE=1: then every test worker, server and
# `manage.py` subprocess compiles the project (and pytest rewrites every test module)
# from source again, about 6 s of CPU each. The project's bytecode is cached in its
# __pycache__ folders (ignored by git) instead.
unexport PYTHONDONTWRITEBYTECODE

$(STAMP): requirements.lock requirements-dev.lock pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -r requirements.lock -r requirements-dev.lock
	$(BIN)/python -m pip install --quiet --no-deps -e .
	touch $(STAMP)

install: $(STAMP)

# The translations (locale/*.po) are compiled in Python (Babel): no GNU gettext needed.
catalogues: install
	$(BIN)/python manage.py compile_catalogues

serve: install catalogues
	$(BIN)/python manage.py migrate --noinput
	$(BIN)/python manage.py runserver 127.0.0.1:8000

# Browser tests drive Debian's chromium in its old headless shell (package
# chromium-headless-shell: half the CPU of the full browser run headless); install
# it when it is missing.
browser-deps:
	@command -v chromium-headless-shell >/dev/null 2>&1 || { \
	  echo "Installing Debian's chromium-headless-shell for the browser tests"; \
	  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium-headless-shell >/dev/null; }

# Two pytest runs: sync Playwright and the async consumer tests clash in one process.
# The browser run is spread over the cores too: each worker starts its own server and
# database, with its own channel and cache prefixes (CHANNEL_PREFIX, CACHE_KEY_PREFIX).
# Both run on every core (pytest-xdist). Each test module runs whole on one
# worker (--dist loadscope), so a module's committed games (and the browser
# modules' tables, made in a `manage.py shell`) are built once, not on each worker.
# (--dist loadgroup would be finer, but xdist 3.8's groups do nothing under pytest 9.)
# PYTEST_WORKERS=0: one process.
PYTEST_WORKERS ?= auto
XDIST = -n $(PYTEST_WORKERS) --dist loadscope

test: install browser-deps catalogues
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy --strict games/rules
	$(BIN)/python -m pytest $(XDIST) -m "not browser and not deploy and not thorough"
	$(BIN)/python -m pytest $(XDIST) -m "browser and not thorough" -p no:asyncio

# CI's thorough pass, on top of `make test`: every property with its full example
# count (HYPOTHESIS_PROFILE=thorough) and the long complete games (marked thorough:
# the 8-player hidden-information game; in browsers the complete games of the
# invariant harness, 2 to 8 players, each move's pages against fresh loads, and the
# complete score sheet), on every core as `make test`.
.PHONY: test-thorough
test-thorough: install browser-deps catalogues
	HYPOTHESIS_PROFILE=thorough $(BIN)/python -m pytest $(XDIST) \
	  -m "(thorough or hypothesis) and not browser and not deploy"
	$(BIN)/python -m pytest $(XDIST) -m "browser and thorough" -p no:asyncio

lint: install
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

# --- deployment (issue 16) ------------------------------------------------------
# The tested deployment: nginx (Debian's, installed when missing) in front of two
# `python -m config.serve` processes, and the production lock in a fresh venv.
# Needs DATABASE_URL (PostgreSQL) and REDIS_URL, as .ci/run sets them.
.PHONY: deploy-deps test-deploy

deploy-deps:
	@command -v nginx >/dev/null 2>&1 || test -x /usr/sbin/nginx || { \
	  echo "Installing Debian's nginx for the deployment test"; \
	  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq nginx >/dev/null; }

test-deploy: install deploy-deps
	$(BIN)/python -m pytest -m deploy
# --- end deployment ---------------------------------------------------------------

# --- the browser suite under load (issue 10) -----------------------------------------
# Three runs in a row of `make test`'s browser tests with both cores kept busy by
# Debian's stress-ng (installed when missing): they wait on state, never on time.
.PHONY: test-browser-stress
test-browser-stress: install browser-deps
	@command -v stress-ng >/dev/null 2>&1 || { \
	  echo "Installing Debian's stress-ng"; \
	  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq stress-ng >/dev/null; }
	stress-ng --cpu 2 --timeout 3600s --quiet & stress=$$!; \
	trap 'kill $$stress' EXIT; \
	for run in 1 2 3; do \
	  echo "== browser run $$run of 3 under stress-ng --cpu 2"; \
	  $(BIN)/python -m pytest $(XDIST) -m "browser and not thorough" -p no:asyncio -q || exit 1; \
	done
