"""The Docker provider without an engine: clear errors, nothing started (the engine lane is in
test_docker_lane.py)."""

from __future__ import annotations

from types import SimpleNamespace

import pytest
from grid_world_env import GridWorldEnv

from openenv.runtime import DockerProvider, ProviderError
from openenv.runtime.docker_provider import DEFAULT_CONTAINER_PORT, exposed_port


def test_without_an_engine_from_docker_image_says_how_to_get_one(monkeypatch):
    monkeypatch.setenv("DOCKER_HOST", "unix:///nonexistent/docker.sock")
    with pytest.raises(ProviderError, match="no Docker engine is reachable") as info:
        GridWorldEnv.from_docker_image("grid-world-env:latest").sync()
    assert "setup_engine.sh" in str(info.value)


async def test_awaiting_without_an_engine_fails_the_same_way(monkeypatch):
    monkeypatch.setenv("DOCKER_HOST", "unix:///nonexistent/docker.sock")
    with pytest.raises(ProviderError, match="no Docker engine is reachable"):
        await GridWorldEnv.from_docker_image("grid-world-env:latest")


def test_a_failed_start_leaves_the_provider_stopped(monkeypatch):
    monkeypatch.setenv("DOCKER_HOST", "unix:///nonexistent/docker.sock")
    provider = DockerProvider("grid-world-env:latest")
    with pytest.raises(ProviderError):
        provider.start()
    assert provider.base_url is None and provider.container_id is None
    provider.stop()  # nothing to stop: no error


@pytest.mark.parametrize(
    ("exposed", "port"),
    [
        ({"7860/tcp": {}}, 7860),
        ({}, DEFAULT_CONTAINER_PORT),
        ({"8000/tcp": {}, "9000/tcp": {}}, DEFAULT_CONTAINER_PORT),
        ({"53/udp": {}, "8080/tcp": {}}, 8080),
    ],
)
def test_the_server_port_is_the_one_the_image_exposes(exposed: dict, port: int):
    image = SimpleNamespace(attrs={"Config": {"ExposedPorts": exposed}})
    assert exposed_port(image) == port
