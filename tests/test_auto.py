"""AutoEnv / AutoAction: every usual spelling of a name finds the env's typed client and Action."""

from __future__ import annotations

import sys

import pytest
from echo_env import CallToolAction, EchoEnv
from grid_world_env import GridWorldAction, GridWorldEnv

from openenv import AutoAction, AutoEnv
from openenv.core.errors import EnvNotFound
from openenv.runtime import LocalProcessProvider, app_of_package

API_ONLY = {"ENABLE_WEB_INTERFACE": "0"}


@pytest.mark.parametrize("name", ["grid_world", "grid-world", "grid_world_env", "Grid-World-Env"])
def test_every_name_form_finds_the_grid_world(name: str):
    assert AutoEnv.get_env_class(name) is GridWorldEnv
    assert AutoAction.from_env(name) is GridWorldAction


@pytest.mark.parametrize("name", ["echo", "echo-env", "echo_env", "ECHO"])
def test_every_name_form_finds_the_echo_package(name: str):
    assert AutoEnv.get_env_class(name) is EchoEnv
    assert AutoAction.from_env(name) is CallToolAction
    assert "echo" in AutoEnv.list_environments()


def test_from_env_starts_the_env_locally_and_closing_stops_it():
    env = AutoEnv.from_env("echo-env", env_vars=API_ONLY)
    assert isinstance(env, EchoEnv)
    provider = env._provider
    with env.sync() as client:
        assert client.reset().observation.metadata["message"] == "Echo environment ready!"
        action = AutoAction.from_env("echo")(
            tool_name="echo_message", arguments={"message": "hello"}
        )
        result = client.step(action)
        assert result.observation.result["data"] == "hello"
    assert provider.base_url is None and not provider.is_alive()


async def test_from_env_with_base_url_connects_without_starting_anything():
    server = LocalProcessProvider(app_of_package("grid_world_env"), env_vars=API_ONLY)
    with server:
        env = AutoEnv.from_env("grid-world", base_url=server.base_url)
        assert isinstance(env, GridWorldEnv) and env._provider is None
        async with env:
            await env.reset(seed=0)
            result = await env.step_move("DOWN")
            assert (result.observation.x, result.observation.y) == (1, 0)
        assert server.is_alive()  # the client did not own it


def test_an_unknown_name_suggests_the_closest_installed_one():
    with pytest.raises(EnvNotFound, match="Did you mean grid_world"):
        AutoEnv.from_env("grid_wrld")


def test_a_space_id_without_hub_support_says_spaces_are_offline(monkeypatch):
    monkeypatch.setitem(sys.modules, "openenv.hub.spaces", None)  # as if not installed
    with pytest.raises(EnvNotFound, match="not reachable"):
        AutoEnv.from_env("openenv/grid_world")


def test_a_space_id_gives_the_typed_client_of_the_space(monkeypatch):
    monkeypatch.setenv("HF_TOKEN", "hf_test_token")
    env = AutoEnv.from_env("Someone/grid_world")
    assert isinstance(env, GridWorldEnv) and env._provider is None
    assert env.base_url == "https://someone-grid-world.hf.space"
    assert env._headers["Authorization"] == "Bearer hf_test_token"
    local = AutoEnv.from_env("someone/grid-world-env", base_url="http://127.0.0.1:9")
    assert isinstance(local, GridWorldEnv) and local.base_url == "http://127.0.0.1:9"


def test_a_space_of_an_env_not_installed_is_not_downloaded():
    with pytest.raises(EnvNotFound, match="no installed environment package"):
        AutoEnv.from_env("someone/teleporter")


def test_auto_classes_are_factories_only():
    with pytest.raises(TypeError, match="from_env"):
        AutoEnv()
    with pytest.raises(TypeError, match="from_env"):
        AutoAction()
