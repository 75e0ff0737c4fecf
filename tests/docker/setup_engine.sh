#!/usr/bin/env bash
# Sets up a Docker engine and the base images the Docker test lane needs, without any registry.
#
#   bash tests/docker/setup_engine.sh        # as root (or with sudo); idempotent
#
# 1. installs Debian's docker.io and debootstrap when dockerd is missing (apt);
# 2. starts dockerd in the background when no engine answers (log: $DOCKERD_LOG);
# 3. openenv-base:latest   <- a minimal Debian bookworm root filesystem with python3 + venv,
#                             made with debootstrap and loaded with `docker import`;
# 4. python:3.11-slim      <- a LOCAL stand-in for the Docker Hub image the Space Dockerfile
#                             starts FROM: openenv-base + pip + a wheelhouse of the project's
#                             pinned requirements (built here with the host's pip), with
#                             PIP_NO_INDEX so image builds never reach an index. Rebuilt
#                             when the pins change; a real python:3.11-slim is kept as is.
# Every step prints how long it took. Exit status 0 means `docker info` answers and both images
# exist; tests/test_docker_lane.py then runs instead of reporting "DOCKER LANE NOT RUN".
set -euo pipefail
cd "$(dirname "$0")/../.."
ROOT=$PWD
DOCKERD_LOG=${DOCKERD_LOG:-/tmp/openenv-dockerd.log}
MIRROR=${DEBIAN_MIRROR:-http://deb.debian.org/debian}
SUDO=""; [ "$(id -u)" = 0 ] || SUDO="sudo"
WORK=$(mktemp -d /tmp/openenv-docker-setup.XXXXXX)
trap '$SUDO rm -rf "$WORK"' EXIT

timed() {  # timed "label" cmd...: run, then print the label and the seconds it took
  local label=$1 start=$SECONDS; shift
  echo "== $label"
  "$@"
  echo "   $label: $((SECONDS - start)) s"
}

install_engine() {
  $SUDO apt-get -o DPkg::Lock::Timeout=900 update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get -o DPkg::Lock::Timeout=900 install -y -qq docker.io debootstrap >/dev/null
}

start_engine() {
  $SUDO sh -c "setsid dockerd >'$DOCKERD_LOG' 2>&1 < /dev/null &"
  for _ in $(seq 1 60); do
    docker info >/dev/null 2>&1 && return 0
    sleep 1
  done
  echo "dockerd did not answer within 60 s; its log ($DOCKERD_LOG):" >&2
  tail -20 "$DOCKERD_LOG" >&2
  return 1
}

build_base() {
  $SUDO debootstrap --variant=minbase --include=python3,python3-venv,python3-pip,ca-certificates \
    bookworm "$WORK/rootfs" "$MIRROR" >"$WORK/debootstrap.log" 2>&1 \
    || { tail -20 "$WORK/debootstrap.log" >&2; return 1; }
  $SUDO rm -rf "$WORK"/rootfs/var/cache/apt/archives/*.deb "$WORK"/rootfs/var/lib/apt/lists/*
  $SUDO ln -sf python3 "$WORK/rootfs/usr/bin/python"
  $SUDO tar -C "$WORK/rootfs" -c . | docker import \
    -c 'ENV LANG=C.UTF-8' -c 'CMD ["python3"]' - openenv-base:latest >/dev/null
}

requirements_hash() {  # of the pinned requirements every Space bundle installs
  python3 -m openenv.cli build envs/grid_world_env --no-image --out "$WORK/bundle" >/dev/null
  sha256sum "$WORK/bundle/requirements.txt" | cut -c1-16
}

stand_in_is_current() {  # true for a real python:3.11-slim, or our stand-in for these pins
  local labels
  labels=$(docker image inspect -f '{{json .Config.Labels}}' python:3.11-slim 2>/dev/null) \
    || return 1
  case "$labels" in
    *org.openenv.stand-in*) [[ "$labels" == *"\"org.openenv.requirements\":\"$1\""* ]] ;;
    *) return 0 ;;
  esac
}

build_python_stand_in() {
  local ctx=$WORK/python-slim
  mkdir -p "$ctx/wheels"
  python3 -m pip wheel -q --wheel-dir "$ctx/wheels" -r "$WORK/bundle/requirements.txt" \
    >"$WORK/wheel.log" 2>&1 || { tail -20 "$WORK/wheel.log" >&2; return 1; }
  cat >"$ctx/Dockerfile" <<'EOF'
FROM openenv-base:latest
COPY wheels /opt/wheels
ENV PIP_NO_INDEX=1 PIP_FIND_LINKS=/opt/wheels PIP_BREAK_SYSTEM_PACKAGES=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1
LABEL org.openenv.stand-in="python:3.11-slim: local Debian python3 + offline wheelhouse"
EOF
  docker build -q --network none --label "org.openenv.requirements=$1" \
    -t python:3.11-slim "$ctx" >"$WORK/build.log" 2>&1 || { tail -20 "$WORK/build.log" >&2; return 1; }
}

if ! command -v dockerd >/dev/null 2>&1 || ! command -v debootstrap >/dev/null 2>&1; then
  timed "apt-get install docker.io debootstrap" install_engine
fi
if ! docker info >/dev/null 2>&1; then
  timed "start dockerd" start_engine
fi
if ! docker image inspect openenv-base:latest >/dev/null 2>&1; then
  timed "debootstrap + docker import openenv-base:latest" build_base
fi
REQS=$(requirements_hash)
if ! stand_in_is_current "$REQS"; then
  timed "python:3.11-slim stand-in (offline wheelhouse)" build_python_stand_in "$REQS"
fi
echo "== Docker engine ready: $(docker info --format '{{.ServerVersion}}'); images:"
docker image ls --format '   {{.Repository}}:{{.Tag}} {{.Size}}' | grep -E 'openenv-base|python' || true
echo "   (project root: $ROOT)"
