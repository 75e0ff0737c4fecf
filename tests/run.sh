#!/usr/bin/env bash
# Installs everything the test suite needs on a fresh machine, then runs all of it
# (lint, unit, protocol, compatibility and browser tests). Usage: bash tests/run.sh [pytest args]
set -euo pipefail
cd "$(dirname "$0")/.."

if ! command -v chromium >/dev/null 2>&1; then
  echo "== installing Debian's chromium (browser tests)"
  SUDO=""; [ "$(id -u)" = 0 ] || SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq chromium >/dev/null
fi

echo "== installing the project and its test dependencies"
python3 -m pip install -q --disable-pip-version-check -e ".[test]"

echo "== ruff"
python3 -m ruff check .

echo "== pytest"
python3 -m pytest "$@"
