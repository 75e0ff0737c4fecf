"""Finding, starting and pooling env servers fail with typed errors from openenv.core.errors."""

from __future__ import annotations

from pathlib import Path

import pytest

import openenv.runtime
from openenv import AutoEnv, EnvPool
from openenv.client import GenericEnvClient
from openenv.core import errors
from openenv.runtime import DockerProvider, LocalProcessProvider

LOCAL_ERRORS = [
    ("EnvNotFound", LookupError),
    ("EnvUnavailable", Exception),
    ("ProviderError", RuntimeError),
    ("EngineUnavailable", RuntimeError),
    ("ImageNotFound", RuntimeError),
    ("ServerExited", RuntimeError),
    ("ServerNotHealthy", RuntimeError),
    ("PoolClosed", RuntimeError),
]


@pytest.mark.parametrize(("name", "builtin"), LOCAL_ERRORS)
def test_every_runtime_error_is_an_openenv_error_that_keeps_its_builtin_base(name, builtin):
    cls = getattr(errors, name)
    assert issubclass(cls, errors.OpenEnvError) and issubclass(cls, builtin)
    assert cls.code not in errors.WIRE_CODES  # local: never sent over the wire


@pytest.mark.parametrize("name", [n for n, _ in LOCAL_ERRORS if n != "PoolClosed"])
def test_the_old_import_names_are_the_same_classes(name):
    assert getattr(openenv.runtime, name) is getattr(errors, name)


def test_the_start_failures_are_told_apart():
    for cls in (errors.EngineUnavailable, errors.ImageNotFound, errors.ServerExited):
        assert issubclass(cls, errors.ProviderError)
    assert issubclass(errors.ServerNotHealthy, errors.ProviderError)


def test_an_unknown_env_name_is_env_not_found():
    with pytest.raises(errors.EnvNotFound, match="Did you mean grid_world"):
        AutoEnv.from_env("grid_wrld")


def test_no_docker_engine_is_engine_unavailable(monkeypatch):
    monkeypatch.setenv("DOCKER_HOST", "unix:///nonexistent/docker.sock")
    with pytest.raises(errors.EngineUnavailable, match="no Docker engine is reachable"):
        DockerProvider("grid-world-env:latest").start()


def test_a_server_that_dies_is_server_exited_and_a_silent_one_is_not_healthy(tmp_path: Path):
    (tmp_path / "dies_app.py").write_text("raise SystemExit('bad config')\n")
    (tmp_path / "hangs_app.py").write_text("import time\ntime.sleep(60)\n")
    site = {"PYTHONPATH": str(tmp_path)}
    with (
        pytest.raises(errors.ServerExited, match="bad config"),
        LocalProcessProvider("dies_app:app", env_vars=site),
    ):
        pass
    hangs = LocalProcessProvider("hangs_app:app", env_vars=site)
    try:
        hangs.start()
        with pytest.raises(errors.ServerNotHealthy, match="raise timeout_s"):
            hangs.wait_until_healthy(timeout_s=0.5)
    finally:
        hangs.stop()


def test_a_closed_pool_says_so():
    pool = EnvPool([GenericEnvClient(base_url="http://127.0.0.1:9")]).sync()
    pool.close()
    with pytest.raises(errors.PoolClosed, match="make a new one"):
        pool.reset(seed=0)
