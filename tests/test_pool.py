"""EnvPool: many sessions stepped together; one failing member never disturbs the others."""

from __future__ import annotations

import os
import textwrap
from collections.abc import Iterator

import pytest
from grid_world_env import GridWorldAction, GridWorldEnv

from openenv import EnvPool
from openenv.client import GenericEnvClient
from openenv.core.errors import ClientError
from openenv.runtime import LocalProcessProvider

API_ONLY = {"ENABLE_WEB_INTERFACE": "0"}
SEED = 10
FAULTY_SEED = 13  # member 3 of a pool reset with seed=SEED
ROUTE = ["DOWN"] * 4 + ["RIGHT"] * 4  # from (0, 0) to the goal in 8 steps, reward 0.3

FAULTY_APP = textwrap.dedent(
    """
    from grid_world_env.server.environment import GridWorldEnvironment
    from openenv.server import create_app


    class FaultyGridEnvironment(GridWorldEnvironment):
        \"\"\"The grid world, except that an episode seeded with 13 fails on every step.\"\"\"

        def reset(self, seed=None, episode_id=None):
            self.faulty = seed == 13
            return super().reset(seed=seed, episode_id=episode_id)

        def step(self, action):
            if self.faulty:
                raise RuntimeError("wheel sensor failure")
            return super().step(action)


    app = create_app(FaultyGridEnvironment)
    """
)


@pytest.fixture(scope="module")
def faulty_servers(tmp_path_factory: pytest.TempPathFactory) -> Iterator[list[str]]:
    """Two servers of a grid world whose seed-13 episodes raise in step()."""
    site = tmp_path_factory.mktemp("faulty")
    (site / "faulty_grid.py").write_text(FAULTY_APP)
    path = os.pathsep.join([str(site), os.environ.get("PYTHONPATH", "")])
    providers = [
        LocalProcessProvider("faulty_grid:app", env_vars={"PYTHONPATH": path, **API_ONLY})
        for _ in range(2)
    ]
    try:
        for provider in providers:
            provider.start()
        for provider in providers:
            provider.wait_until_healthy()
        yield [p.base_url for p in providers]
    finally:
        for provider in providers:
            provider.stop()


def route_actions(t: int, size: int) -> list[GridWorldAction]:
    return [GridWorldAction(action=ROUTE[t % len(ROUTE)])] * size


async def test_eight_grid_worlds_run_100_steps_with_one_member_failing(faulty_servers):
    async with EnvPool.connect(GridWorldEnv, faulty_servers, size=8) as pool:
        assert [r.ok for r in await pool.reset(seed=SEED)] == [True] * 8
        episodes, rewards = [0] * 8, [0.0] * 8
        for t in range(100):
            results = await pool.step(route_actions(t, 8))
            assert [r.index for r in results] == list(range(8))
            bad = results[3]
            assert isinstance(bad.error, ClientError) and bad.result is None
            assert bad.error.server_code == "EXECUTION_ERROR"
            assert "wheel sensor failure" in str(bad.error)
            for r in results[:3] + results[4:]:
                assert r.ok, r.error
                rewards[r.index] += r.reward
            finished = [r.index for r in results if r.done]
            for i in finished:
                episodes[i] += 1
            if finished:
                again = await pool.reset(seed=SEED, indices=finished)
                assert [again[i].ok for i in finished] == [True] * len(finished)
                assert sum(r.skipped for r in again) == 8 - len(finished)
    healthy = [i for i in range(8) if i != 3]
    assert [episodes[i] for i in healthy] == [12] * 7  # 96 of the 100 steps end an episode
    assert [round(rewards[i], 6) for i in healthy] == [round(12 * 0.3 - 0.4, 6)] * 7
    assert episodes[3] == 0


def test_invalid_actions_to_one_member_are_reported_on_that_member_only(faulty_servers):
    clients = [GridWorldEnv(base_url=faulty_servers[0]) for _ in range(3)]
    clients.append(GenericEnvClient(base_url=faulty_servers[1]))
    with EnvPool(clients).sync() as pool:
        pool.reset()
        results = pool.step([{"action": "DOWN"}, {"action": "JUMP"}, None, {"action": "SIDEWAYS"}])
        assert results[0].ok and results[0].observation.x == 1
        assert "Input should be 'UP'" in str(results[1].error)  # refused by the client
        assert results[2].skipped and results[2].result is None
        assert results[3].error.server_code == "VALIDATION_ERROR"  # refused by the server
        again = pool.step([{"action": "DOWN"}] * 4)
        assert [r.ok for r in again] == [True] * 4
        assert [r.observation.x if i < 3 else r.observation["x"] for i, r in enumerate(again)] == [
            2, 1, 1, 1,
        ]  # fmt: skip


async def test_a_member_whose_server_dies_fails_alone(faulty_servers):
    lone = LocalProcessProvider("grid_world_env.server.app:app", env_vars=API_ONLY)
    with lone:
        clients = [GridWorldEnv(base_url=faulty_servers[0]) for _ in range(3)]
        clients.append(GridWorldEnv(base_url=lone.base_url))
        async with EnvPool(clients) as pool:
            await pool.reset()
            assert all(r.ok for r in await pool.step(route_actions(0, 4)))
            lone.stop()
            for t in range(1, 4):
                results = await pool.step(route_actions(t, 4))
                assert [r.ok for r in results] == [True, True, True, False]
                assert isinstance(results[3].error, ClientError)
            assert results[0].observation.x == 4


def test_launch_starts_its_servers_and_close_stops_them():
    pool = EnvPool.launch("grid-world", size=4, servers=2, env_vars=API_ONLY)
    providers = list(pool._providers)
    assert len({c.base_url for c in pool.clients}) == 2
    with pool.sync() as blocking:
        results = blocking.reset(seed=0)
        assert [r.observation.message for r in results] == [results[0].observation.message] * 4
        with pytest.raises(ValueError, match="one action per member"):
            blocking.step([{"action": "UP"}])
    assert all(p.base_url is None and not p.is_alive() for p in providers)
    blocking.close()  # twice is fine


def test_an_empty_pool_is_refused():
    with pytest.raises(ValueError, match="at least one client"):
        EnvPool([])
