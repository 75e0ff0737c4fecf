"""A normal install works like a checkout: the wheel, installed into a fresh virtualenv that
cannot see the source tree, serves an environment whose playground plays in the browser.

The virtualenv's dependencies are the pinned requirements a Space gets (one cached virtualenv,
shared with the Space bundle tests); the wheel itself is built and installed by pip.
"""

from __future__ import annotations

import contextlib
import os
import subprocess
import zipfile
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from conftest import ROOT, free_port, server_process, step_down_in_the_playground
from venvs import build_wheel, clean_python, fresh_venv

from openenv.hub.bundle import requirements

pytestmark = pytest.mark.slow

# Files a server reads at run time, each where an installed wheel must hold it.
PACKAGE_DATA = (
    "openenv/web/playground.py",
    "openenv/web/assets/stage.js",
    "openenv/web/assets/page.js",
    "openenv/web/assets/playground.css",
    "openenv/web/assets/rewards.js",
    "openenv/spaces/templates/Dockerfile.tmpl",
    "openenv/spaces/templates/app_catalog.py.tmpl",
    "openenv/cli/templates/env/server/app.py.tmpl",
    "grid_world_env/openenv.yaml",
    "grid_world_env/server/app.py",
    "wordle_env/words.txt",
    "chess_env/README.md",
    "sumo_rl_env/nets/single-intersection.net.xml",
    "textarena_env/nltk_data/corpora/words/en",
    "openenv/web/assets/watch.js",
    "openenv/sandbox/runner.py",
    "openenv/sandbox/launcher.py",
    "chess_env/assets/screenshot.png",
)


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Path:
    return build_wheel(ROOT, tmp_path_factory.mktemp("wheel"))


@pytest.fixture(scope="module")
def python(wheel: Path, tmp_path_factory) -> Path:
    """A fresh virtualenv's python, with the wheel installed and the core requirements."""
    pinned = tmp_path_factory.mktemp("requirements") / "requirements.txt"
    pinned.write_text("\n".join(requirements(set())) + "\n")
    return fresh_venv(tmp_path_factory.mktemp("venv") / "venv", clean_python(pinned), wheel)


def outside_the_checkout(tmp_path: Path) -> dict[str, str]:
    """The environment of a user's shell far from the checkout: no PYTHONPATH, a home of its own."""
    keep = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    return {**keep, "HOME": str(tmp_path), "PATH": "/usr/bin:/bin", "NO_COLOR": "1"}


@contextlib.contextmanager
def openenv_serve(python: Path, name: str, cwd: Path) -> Iterator[str]:
    port = free_port()
    cmd = [
        str(python.parent / "openenv"),
        "serve",
        name,
        "--host",
        "127.0.0.1",
        "--port",
        str(port),
    ]
    with server_process(cmd, port, cwd=cwd, env=outside_the_checkout(cwd)) as url:
        yield url


def test_the_wheel_holds_the_web_layer_inside_openenv_with_its_files(wheel: Path) -> None:
    names = set(zipfile.ZipFile(wheel).namelist())
    tops = {name.split("/")[0] for name in names if not name.split("/")[0].endswith(".dist-info")}
    assert {"openenv", "grid_world_env", "chess_env"} <= tops
    assert not {"web", "assets", "spaces", "tests", "bench"} & tops  # no generic top-level names
    missing = [path for path in PACKAGE_DATA if path not in names]
    assert not missing, f"the wheel lacks {missing}"
    assert "openenv/web/assets/playground.png" not in names  # the README's picture stays out


def test_the_installed_framework_comes_from_the_virtualenv_only(
    python: Path, tmp_path: Path
) -> None:
    code = (
        "import importlib.util, openenv, openenv.web.playground, grid_world_env\n"
        "from openenv.web.static import asset\n"
        "print(openenv.__file__); print(openenv.web.__file__); print(grid_world_env.__file__)\n"
        "assert importlib.util.find_spec('web') is None, 'a top-level web package'\n"
        "assert asset('stage.js').startswith('//')\n"
    )
    out = subprocess.run(
        [str(python), "-c", code], cwd=tmp_path, env=outside_the_checkout(tmp_path),
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert out.returncode == 0, out.stderr
    venv = python.parent.parent.resolve()
    for line in out.stdout.split():
        assert Path(line).resolve().is_relative_to(venv), line


@pytest.mark.browser
def test_openenv_serve_from_the_wheel_plays_in_the_browser(
    python: Path, tmp_path: Path, page
) -> None:
    with openenv_serve(python, "grid_world", tmp_path) as url:
        assert httpx.get(url + "/schema").json()["action"]["title"] == "GridWorldAction"
        assert 'class="oe-stage"' in httpx.get(url + "/web/").text  # the stage, in the page
        page.goto(url + "/web/")
        step_down_in_the_playground(page)
        assert not page.console_errors, page.console_errors
        assert not page.external_requests, page.external_requests


def test_an_env_whose_extra_is_missing_is_named_with_its_install_command(
    python: Path, tmp_path: Path
) -> None:
    out = subprocess.run(
        [str(python.parent / "openenv"), "serve", "chess", "--port", str(free_port())],
        cwd=tmp_path, env=outside_the_checkout(tmp_path), capture_output=True, text=True,
        timeout=120,
    )  # fmt: skip
    said = out.stdout + out.stderr
    assert out.returncode == 1
    assert 'pip install "openenv-playground[chess]"' in said, said
    assert "Traceback" not in said
