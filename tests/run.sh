#!/usr/bin/env bash
# Installs everything the test suite needs on a fresh machine, then runs all of it (lint,
# types, unit, protocol, compatibility, packaging and browser tests).
# Usage: bash tests/run.sh [pytest args]
set -euo pipefail
cd "$(dirname "$0")/.."

missing=""
command -v chromium >/dev/null 2>&1 || missing="$missing chromium"  # browser tests
command -v openssl >/dev/null 2>&1 || missing="$missing openssl"  # a test certificate for wss://
command -v curl >/dev/null 2>&1 || missing="$missing curl"  # the docs' shell snippets (test_seed_snippets.py)
command -v git >/dev/null 2>&1 || missing="$missing git"  # git_env's repositories
# jupyter_env's kernels, when the server runs as root: the sandbox's own uid cannot read a
# Python under /root (pyenv), so kernels run on Debian's Python with Debian's packages.
/usr/bin/python3 -c "import ipykernel, matplotlib, pandas" >/dev/null 2>&1 \
  || missing="$missing python3-ipykernel python3-matplotlib python3-pandas"
if [ -n "$missing" ]; then
  echo "== installing Debian's$missing"
  SUDO=""; [ "$(id -u)" = 0 ] || SUDO="sudo"
  $SUDO apt-get update -qq
  # shellcheck disable=SC2086
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq $missing >/dev/null
fi

echo "== installing the project and its test dependencies"
# torch first, pinned to the CPU build pip finds on local disk here: the extras (trl, sb3) ask
# only for "torch>=2.4", which pip alone would resolve to a CUDA build (gigabytes to download).
python3 -m pip install -q --disable-pip-version-check "torch==2.13.0"
python3 -m pip install -q --disable-pip-version-check -e ".[test]"
# browsergym_env's packages pin playwright==1.44, older than the browser tests' Playwright: the
# three are added without their pins (their other needs are listed here; they run with ours).
python3 -m pip install -q --disable-pip-version-check --no-deps \
  "browsergym-core==0.14.3" "browsergym-miniwob==0.14.3" "miniwob==1.1.0"
python3 -m pip install -q --disable-pip-version-check \
  "beautifulsoup4>=4.12" "lxml>=4.9,<6" "pyparsing>=3" "gymnasium>=0.29" "numpy>=1.26" "pillow>=10"

echo "== ruff"
python3 -m ruff check .
python3 -m ruff format --check .

echo "== mypy (openenv/core, openenv/client)"
python3 -m mypy

# The Docker lane (tests/test_docker_*.py) needs an engine and locally built base images (no
# registry here). Set it up when possible; otherwise the lane reports itself as NOT RUN, loudly.
if [ "${OPENENV_DOCKER_LANE:-auto}" != "off" ]; then
  echo "== Docker lane: engine and offline base images (OPENENV_DOCKER_LANE=off skips this)"
  if timeout 1800 bash tests/docker/setup_engine.sh; then
    export OPENENV_DOCKER_LANE=required
  else
    echo "!! DOCKER LANE NOT RUN: the engine could not be set up (see above)"
  fi
fi

echo "== pytest"
python3 -m pytest "$@"
