"""The Docker lane: ``openenv build`` an env image, run it with from_docker_image, leave nothing.

Needs a Docker engine and the base image (``bash tests/docker/setup_engine.sh`` makes both
offline). Without them every test here is reported as skipped with the reason
"DOCKER LANE NOT RUN: ..." (shown by pytest's ``-ra`` summary); with
``OPENENV_DOCKER_LANE=required`` they fail instead, so CI cannot pass silently without the lane.
"""

from __future__ import annotations

import signal
import socket
import subprocess
import sys
import textwrap
import time
from pathlib import Path
from typing import Any

import pytest
from grid_world_env import GridWorldAction, GridWorldEnv

from openenv.runtime import ProviderError
from tests.docker.lane import engine_with

ROOT = Path(__file__).resolve().parent.parent
BASE_IMAGE = "python:3.11-slim"  # what the Space Dockerfile of `openenv build` starts FROM
TAG = "openenv-lane/grid-world-env:test"
ROUTE = ["DOWN"] * 4 + ["RIGHT"] * 4
API_ONLY = {"ENABLE_WEB_INTERFACE": "0"}  # the playground is not under test: start faster


@pytest.fixture(scope="module")
def engine() -> Any:
    """The Docker engine, or the whole module reported as not run (or failed when required)."""
    return engine_with(BASE_IMAGE)


@pytest.fixture(scope="module")
def image(engine: Any, tmp_path_factory: pytest.TempPathFactory) -> str:
    """The grid world image, built by the real ``openenv build`` command."""
    out = tmp_path_factory.mktemp("bundle") / "grid-world-space"
    cmd = [sys.executable, "-m", "openenv.cli", "build", "envs/grid_world_env"]
    done = subprocess.run(
        [*cmd, "--out", str(out), "--tag", TAG],
        cwd=ROOT, capture_output=True, text=True, timeout=1200,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    assert engine.images.list(name=TAG), f"openenv build did not produce {TAG}:\n{done.stdout}"
    return TAG


def containers_with_id(engine: Any, container_id: str) -> list[Any]:
    return engine.containers.list(all=True, filters={"id": container_id})


def wait_removed(engine: Any, container_id: str, timeout: float = 60.0) -> bool:
    deadline = time.monotonic() + timeout
    while containers_with_id(engine, container_id) and time.monotonic() < deadline:
        time.sleep(0.2)
    return not containers_with_id(engine, container_id)


def test_built_image_plays_an_episode_and_its_container_goes_on_close(engine, image):
    env = GridWorldEnv.from_docker_image(image, env_vars=API_ONLY).sync()
    container_id = env.client._provider.container_id
    try:
        attrs = engine.containers.get(container_id).attrs
        assert attrs["HostConfig"]["Privileged"] is False
        bindings = [b for port in attrs["HostConfig"]["PortBindings"].values() for b in port]
        assert [b["HostIp"] for b in bindings] == ["127.0.0.1"]
        assert attrs["Config"]["Labels"]["org.openenv.managed"] == "1"
        assert env.reset(seed=0).observation.message.startswith("Welcome")
        rewards = [env.step(GridWorldAction(action=move)).reward for move in ROUTE]
        assert sum(rewards) == pytest.approx(0.3)
        assert env.state().step_count == 8
    finally:
        env.close()
    assert containers_with_id(engine, container_id) == []


async def test_awaited_from_docker_image_passes_env_vars_and_cleans_up(engine, image):
    env_vars = {"MAX_CONCURRENT_ENVS": "3", **API_ONLY}
    client = await GridWorldEnv.from_docker_image(image, env_vars=env_vars)
    container_id = client._provider.container_id
    async with client:
        env = engine.containers.get(container_id).attrs["Config"]["Env"]
        assert "MAX_CONCURRENT_ENVS=3" in env
        result = await client.reset(seed=1)
        assert (result.observation.x, result.observation.y) == (0, 0)
    assert containers_with_id(engine, container_id) == []


def test_from_docker_image_takes_the_variables_as_environment_too(engine, image):
    """``environment=`` is what openenv 0.10's docs call env_vars (test_seed_snippets.py)."""
    env = GridWorldEnv.from_docker_image(
        image, environment={"MAX_CONCURRENT_ENVS": "2", **API_ONLY}
    )
    with env.sync() as client:
        variables = engine.containers.get(client.client._provider.container_id).attrs["Config"]
        assert "MAX_CONCURRENT_ENVS=2" in variables["Env"]
        assert client.reset(seed=0).observation.x == 0


def test_auto_env_and_env_pool_run_the_image_too(engine, image):
    from openenv import AutoEnv, EnvPool

    env = AutoEnv.from_env("grid-world", use_docker=True, docker_image=image, env_vars=API_ONLY)
    with env.sync() as client:
        assert client.reset().observation.x == 0
        first = env._provider.container_id
    pool = EnvPool.launch(
        "grid_world", size=4, servers=2, use_docker=True, docker_image=image, env_vars=API_ONLY
    )
    ids = [p.container_id for p in pool._providers]
    with pool.sync() as blocking:
        assert all(r.ok for r in blocking.reset(seed=0))
        results = blocking.step([GridWorldAction(action="DOWN")] * 4)
        assert [r.observation.x for r in results] == [1, 1, 1, 1]
    assert [containers_with_id(engine, cid) for cid in [first, *ids]] == [[], [], []]


OWNER_SCRIPT = textwrap.dedent(
    """
    import sys, time
    from grid_world_env import GridWorldEnv
    env_vars = {"ENABLE_WEB_INTERFACE": "0"}
    env = GridWorldEnv.from_docker_image(sys.argv[1], env_vars=env_vars).sync()
    env.reset(seed=0)
    print(env.client._provider.container_id, flush=True)
    time.sleep(600)  # mid-episode until the test kills us
    """
)


def test_container_is_removed_when_its_owner_is_killed(engine, image):
    owner = subprocess.Popen(
        [sys.executable, "-c", OWNER_SCRIPT, image], cwd=ROOT, stdout=subprocess.PIPE, text=True
    )
    try:
        container_id = owner.stdout.readline().strip()
        assert container_id, "the owner script did not start its container"
        assert engine.containers.get(container_id).status == "running"
        owner.send_signal(signal.SIGKILL)
        owner.wait(timeout=20)
    finally:
        if owner.poll() is None:
            owner.kill()
        owner.stdout.close()
    assert wait_removed(engine, container_id)


def test_stale_containers_of_dead_owners_are_removed(engine):
    from openenv.runtime.docker_provider import (
        LABEL_MANAGED,
        LABEL_OWNER_HOST,
        LABEL_OWNER_PID,
        remove_stale_containers,
    )  # fmt: skip

    dead = subprocess.Popen(["true"])
    dead.wait()
    labels = {LABEL_MANAGED: "1", LABEL_OWNER_PID: str(dead.pid)}
    stale = engine.containers.run(
        BASE_IMAGE, ["sleep", "300"], detach=True,
        labels={**labels, LABEL_OWNER_HOST: socket.gethostname()},
    )  # fmt: skip
    try:
        assert stale.name in remove_stale_containers(engine)
        assert containers_with_id(engine, stale.id) == []
    finally:
        if containers_with_id(engine, stale.id):
            stale.remove(force=True)


def test_a_missing_image_says_how_to_build_it(engine):
    from openenv.runtime import DockerProvider

    provider = DockerProvider("openenv-lane/never-built:none")
    with pytest.raises(ProviderError, match="build it first"):
        provider.start()
    assert provider.base_url is None
