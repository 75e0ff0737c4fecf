"""Bootstrap handles (what from_docker_image and from_env return): await or .sync(), never leak."""

from __future__ import annotations

from pathlib import Path

import pytest
from grid_world_env import GridWorldEnv

from openenv.launch import Bootstrap, launch_client
from openenv.runtime import LocalProcessProvider, ProviderError, app_of_package

API_ONLY = {"ENABLE_WEB_INTERFACE": "0"}


def grid_provider() -> LocalProcessProvider:
    return LocalProcessProvider(app_of_package("grid_world_env"), env_vars=API_ONLY)


async def test_awaiting_a_handle_gives_a_connected_client_that_owns_its_server():
    provider = grid_provider()
    client = await Bootstrap(lambda: launch_client(GridWorldEnv, provider))
    assert isinstance(client, GridWorldEnv) and client._ws is not None  # already connected
    async with client:
        await client.reset()
        result = await client.step_move("RIGHT")
        assert (result.observation.x, result.observation.y) == (0, 1)
    assert provider.base_url is None and not provider.is_alive()


def test_sync_handle_gives_a_blocking_client_and_the_same_provider_api_works():
    provider = grid_provider()
    handle = GridWorldEnv.from_docker_image("never-used:tag", provider=provider)
    with handle.sync() as env:
        assert env.reset(seed=3).observation.message.startswith("Welcome")
        assert provider.is_alive()
    assert provider.base_url is None


def test_a_server_that_fails_to_start_is_stopped_before_the_error_reaches_you(tmp_path: Path):
    (tmp_path / "crash_app.py").write_text("raise SystemExit('configuration missing: FOO')\n")
    provider = LocalProcessProvider(
        "crash_app:app", env_vars={"PYTHONPATH": str(tmp_path), **API_ONLY}
    )
    handle = Bootstrap(lambda: launch_client(GridWorldEnv, provider, timeout_s=60))
    with pytest.raises(ProviderError, match="configuration missing: FOO"):
        handle.sync()
    assert provider.base_url is None and not provider.is_alive()


def test_in_plain_code_the_handle_is_the_client_as_the_0_10_docs_use_it():
    provider = grid_provider()
    env = GridWorldEnv.from_docker_image("never-used:tag", provider=provider)
    assert provider.base_url is None  # nothing started before first use
    assert env.reset(seed=3).observation.message.startswith("Welcome")  # starts, connects
    assert env.step_move("RIGHT").observation.y == 1
    env.close()
    assert provider.base_url is None and not provider.is_alive()
    other = grid_provider()
    with GridWorldEnv.from_docker_image("never-used:tag", provider=other) as env:
        assert env.reset().observation.x == 0
    assert not other.is_alive()
