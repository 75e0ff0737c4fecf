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
# pictures made on the server (GIF, MP4, PNG, thumbnails, `openenv render`) draw emoji pieces
# and symbols with these fonts, never as tofu boxes (tests/test_render_glyphs.py)
{ [ -f /usr/share/fonts/truetype/noto/NotoColorEmoji.ttf ] \
  && [ -f /usr/share/fonts/truetype/dejavu/DejaVuSans.ttf ]; } \
  || missing="$missing fonts-noto-color-emoji fonts-dejavu-core"
# jupyter_env's kernels, when the server runs as root: the sandbox's own uid cannot read a
# Python under /root (pyenv), so kernels run on Debian's Python with Debian's packages.
/usr/bin/python3 -c "import ipykernel, matplotlib, pandas" >/dev/null 2>&1 \
  || missing="$missing python3-ipykernel python3-matplotlib python3-pandas"
# kernrl_env's kernels run on that Python too: torch and triton are pip-installed for it below
/usr/bin/python3 -m pip --version >/dev/null 2>&1 || missing="$missing python3-pip"
command -v chromedriver >/dev/null 2>&1 || missing="$missing chromium-driver"  # helium_browser_env
# the npm coding agents (Harbor harnesses) run on the host's Node; strace checks that a rollout
# connects to nothing but the capture proxy on loopback (tests/test_harbor_npm_harnesses.py)
command -v npm >/dev/null 2>&1 || missing="$missing nodejs npm"
command -v strace >/dev/null 2>&1 || missing="$missing strace"
SUDO=""; [ "$(id -u)" = 0 ] || SUDO="sudo"
if [ -n "$missing" ]; then
  echo "== installing Debian's$missing"
  $SUDO apt-get -o DPkg::Lock::Timeout=900 update -qq
  # shellcheck disable=SC2086
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get -o DPkg::Lock::Timeout=900 install -y -qq $missing >/dev/null
fi

if ! /usr/bin/python3 -c "import torch, triton" >/dev/null 2>&1; then
  echo "== torch (CPU build) and triton for Debian's python3 (kernrl_env's sandbox)"
  $SUDO /usr/bin/python3 -m pip install -q --disable-pip-version-check --break-system-packages \
    "torch==2.13.0" "triton>=3.2"
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

echo "== mini-swe-agent in its own virtualenv (the Harbor rollouts' harness; the sandbox's user reads it)"
python3 -m openenv.cli harbor install mini-swe-agent
echo "== the npm coding agents (Harbor harnesses, pinned versions, under the harness home)"
for agent in codex claude-code opencode gemini-cli; do
  python3 -m openenv.cli harbor install "$agent"
done
echo "== the harbor package (Harbor's own task model; Python >= 3.12, its own virtualenv under the harness home)"
python3 -m openenv.cli harbor install harbor \
  || echo "!! harbor package NOT installed (it needs a Python >= 3.12): tests/test_harbor_pypi.py skips"

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
if [ "$#" -gt 0 ]; then  # a part of the suite, as asked: one run
  exec python3 -m pytest "$@"
fi
# The whole suite in two halves side by side (tests/conftest.py, --lane): the browser tests and
# the Docker package lane (mostly waiting on Chromium, servers and containers) beside the rest.
# Lane 1 writes to a log that is printed when both are done; the exit code is a failure if
# either half failed.
lane1_log="$(mktemp -t openenv-lane1.XXXXXX.log)"
python3 -m pytest --lane 1 -p no:cacheprovider --durations=10 >"$lane1_log" 2>&1 &
lane1=$!
status=0
python3 -m pytest --lane 2 --durations=10 || status=$?
lane1_status=0
wait "$lane1" || lane1_status=$?
echo "== pytest, lane 1 (browser tests and the Docker package lane)"
cat "$lane1_log"
rm -f "$lane1_log"
echo "== pytest: lane 2 exit $status, lane 1 exit $lane1_status"
if [ "$status" -ne 0 ] || [ "$lane1_status" -ne 0 ]; then
  exit 1
fi
