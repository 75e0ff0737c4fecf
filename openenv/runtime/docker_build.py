"""Build a Docker image that serves one environment package, without a registry.

``build_env_image("grid_world")`` → ``"grid-world-env:latest"``. The image is the base image
(``$OPENENV_BASE_IMAGE``, default ``openenv-base:latest``: any image with ``python3`` and its
``venv`` module, e.g. ``python:3.11-slim`` or the Debian one ``tests/docker/setup_engine.sh``
makes), a virtualenv in ``/opt/venv``, and wheels of this project and its dependencies built
on the host with ``pip wheel``: the build itself needs no network (it runs with
``network_mode="none"``). The server listens on ``$PORT`` (default 8000).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from openenv.runtime.errors import ProviderError
from openenv.runtime.packages import find_env_package

DEFAULT_BASE_IMAGE = "openenv-base:latest"
LABEL_ENV = "org.openenv.env"
PROJECT_ROOT = Path(__file__).resolve().parents[2]
WHEEL_CACHE = Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "openenv-wheels"

DOCKERFILE = """\
FROM {base}
RUN python3 -m venv /opt/venv
COPY deps /wheels/deps
RUN /opt/venv/bin/pip install -q --no-index --no-deps /wheels/deps/*.whl
COPY project /wheels/project
RUN /opt/venv/bin/pip install -q --no-index --no-deps /wheels/project/*.whl && rm -rf /wheels
ENV PATH=/opt/venv/bin:$PATH PORT=8000 PYTHONUNBUFFERED=1
EXPOSE 8000
LABEL {label}="{env}"
CMD ["sh", "-c", "exec python -m uvicorn {app} --host 0.0.0.0 --port ${{PORT:-8000}}"]
"""


def build_wheels(root: Path, out: Path, extras: Sequence[str] = ()) -> tuple[Path, list[Path]]:
    """``pip wheel`` the project at ``root`` and its dependencies; (project wheel, deps)."""
    spec = f"{root}[{','.join(extras)}]" if extras else str(root)
    out.mkdir(parents=True, exist_ok=True)
    cmd = [sys.executable, "-m", "pip", "wheel", "-q", "--wheel-dir", str(out), spec]
    done = subprocess.run(cmd, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise ProviderError(f"`{' '.join(cmd)}` failed:\n{done.stderr[-3000:]}")
    wheels = sorted(out.glob("*.whl"))
    name = _project_name(root).replace("-", "_")
    project = [w for w in wheels if w.name.split("-")[0].lower() == name.lower()]
    if len(project) != 1:
        raise ProviderError(f"expected one wheel of {name} in {out}, found {project}")
    return project[0], [w for w in wheels if w != project[0]]


def _project_name(root: Path) -> str:
    import tomllib

    with open(root / "pyproject.toml", "rb") as f:
        return str(tomllib.load(f)["project"]["name"])


def write_context(ctx: Path, env: str, base: str, project: Path, deps: list[Path]) -> None:
    """Lay out a build context: Dockerfile, ``deps/`` and ``project/`` wheels."""
    package = find_env_package(env)
    for sub, wheels in (("deps", deps), ("project", [project])):
        (ctx / sub).mkdir(parents=True)
        for wheel in wheels:
            _link_or_copy(wheel, ctx / sub / wheel.name)
    text = DOCKERFILE.format(base=base, label=LABEL_ENV, env=package.name, app=package.app)
    (ctx / "Dockerfile").write_text(text, encoding="utf-8")


def _link_or_copy(src: Path, dst: Path) -> None:
    try:
        os.link(src, dst)
    except OSError:
        shutil.copy2(src, dst)


def build_env_image(
    env: str,
    tag: str | None = None,
    *,
    base_image: str | None = None,
    project_root: Path = PROJECT_ROOT,
    extras: Sequence[str] = (),
    client: Any = None,
) -> str:
    """Build the image of env ``env`` (any name form) and return its tag."""
    from openenv.runtime.docker_provider import docker_client

    client = client or docker_client()
    base = base_image or os.environ.get("OPENENV_BASE_IMAGE", DEFAULT_BASE_IMAGE)
    _require_image(client, base)
    tag = tag or find_env_package(env).image
    cache = WHEEL_CACHE / "-".join(["wheels", *extras])
    for stale in cache.glob(f"{_project_name(project_root).replace('-', '_')}-*.whl"):
        stale.unlink()  # always rebuild the project itself; dependencies stay cached
    project, deps = build_wheels(project_root, cache, extras)
    with tempfile.TemporaryDirectory(prefix="openenv-build-") as tmp:
        write_context(Path(tmp), env, base, project, deps)
        _docker_build(client, tmp, tag)
    return tag


def _require_image(client: Any, image: str) -> None:
    import docker.errors

    try:
        client.images.get(image)
    except docker.errors.ImageNotFound as exc:
        raise ProviderError(
            f"base image {image!r} is not on this Docker engine. Build one offline with "
            "`bash tests/docker/setup_engine.sh`, or `docker pull python:3.11-slim` where a "
            "registry is reachable and set OPENENV_BASE_IMAGE=python:3.11-slim."
        ) from exc


def _docker_build(client: Any, context: str, tag: str) -> None:
    import docker.errors

    try:
        client.images.build(path=context, tag=tag, rm=True, network_mode="none")
    except docker.errors.BuildError as exc:
        log = "".join(str(chunk.get("stream", chunk.get("error", ""))) for chunk in exc.build_log)
        raise ProviderError(f"docker build of {tag} failed: {exc}\n{log[-3000:]}") from exc
