"""The local process provider: servers start side by side, play, and never outlive their owner."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import httpx
import pytest
from grid_world_env import GridWorldAction, GridWorldEnv
from maze_env import MazeEnv

from openenv.runtime import LocalProcessProvider, ProviderError, app_of_package

ROOT = Path(__file__).resolve().parent.parent
API_ONLY = {"ENABLE_WEB_INTERFACE": "0"}  # these tests need no playground: start faster


def live_group_members(pgid: int) -> list[int]:
    """Pids of non-zombie processes in process group ``pgid`` (read from /proc)."""
    members = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except (OSError, IndexError):
            continue
        if int(fields[2]) == pgid and fields[0] != "Z":
            members.append(int(stat.parent.name))
    return members


def wait_until_gone(pgid: int, timeout: float = 20.0) -> list[int]:
    """Wait for a process group to die; return whoever is still alive after ``timeout``."""
    deadline = time.monotonic() + timeout
    while (alive := live_group_members(pgid)) and time.monotonic() < deadline:
        time.sleep(0.1)
    return alive


def refuses_connections(url: str) -> bool:
    try:
        httpx.get(url + "/health", timeout=2)
    except httpx.ConnectError:
        return True
    return False


async def walk_to_goal(client: GridWorldEnv) -> float:
    await client.reset(seed=0)
    total = 0.0
    for move in ["DOWN"] * 4 + ["RIGHT"] * 4:
        result = await client.step(GridWorldAction(action=move))
        total += result.reward or 0.0
    assert result.done
    return total


async def test_two_envs_side_by_side_play_and_leave_nothing_behind():
    grid = LocalProcessProvider(app_of_package("grid_world_env"), env_vars=API_ONLY)
    maze = LocalProcessProvider(app_of_package("maze_env"), env_vars=API_ONLY)
    with grid, maze:
        assert grid.base_url != maze.base_url
        assert grid.base_url.startswith("http://127.0.0.1:")
        pids = [grid.pid, maze.pid]
        async with GridWorldEnv(base_url=grid.base_url) as g, MazeEnv(base_url=maze.base_url) as m:
            assert await walk_to_goal(g) == pytest.approx(0.3)
            maze_obs = (await m.reset(seed=1)).observation
            assert maze_obs.done is False
            assert await walk_to_goal(g) == pytest.approx(0.3)  # a second episode, same session
        urls = [grid.base_url, maze.base_url]
    assert grid.base_url is None and maze.base_url is None
    for pid in pids:
        assert wait_until_gone(pid) == []
    assert all(refuses_connections(url) for url in urls)


def test_start_and_stop_are_idempotent():
    provider = LocalProcessProvider(app_of_package("grid_world_env"), env_vars=API_ONLY)
    provider.stop()  # never started: nothing to do
    url = provider.start()
    assert provider.start() == url
    provider.wait_until_healthy()
    pid = provider.pid
    provider.stop()
    provider.stop()
    assert wait_until_gone(pid) == []


def test_a_server_that_cannot_start_reports_its_own_error(tmp_path: Path):
    (tmp_path / "broken_app.py").write_text("raise ImportError('no module named gizmo')\n")
    provider = LocalProcessProvider("broken_app:app", env_vars={"PYTHONPATH": str(tmp_path)})
    with pytest.raises(ProviderError, match="exited before becoming healthy") as info, provider:
        pass
    assert "no module named gizmo" in str(info.value)
    assert provider.base_url is None


OWNER_SCRIPT = textwrap.dedent(
    """
    import signal, sys, time
    # Ctrl+C raises KeyboardInterrupt, even when this was started with SIGINT ignored (a job
    # that a shell without job control started in the background, as some CI runners do).
    signal.signal(signal.SIGINT, signal.default_int_handler)
    from openenv.launch import AutoEnv
    env = AutoEnv.from_env("grid_world", env_vars={"ENABLE_WEB_INTERFACE": "0"}).sync()
    env.reset(seed=0)
    env.step({"action": "DOWN"})
    provider = env.client._provider
    print(provider.pid, provider.base_url, flush=True)
    time.sleep(600)  # mid-episode until the test kills us
    """
)


@pytest.mark.parametrize("sig", [signal.SIGKILL, signal.SIGINT], ids=["SIGKILL", "SIGINT"])
def test_server_dies_with_a_client_killed_mid_episode(sig: int):
    owner = subprocess.Popen(
        [sys.executable, "-c", OWNER_SCRIPT], cwd=ROOT, stdout=subprocess.PIPE, text=True
    )
    try:
        line = owner.stdout.readline().split()
        assert len(line) == 2, "the owner script did not start its server"
        server_pid, url = int(line[0]), line[1]
        assert live_group_members(server_pid) == [server_pid]
        httpx.get(url + "/health", timeout=5).raise_for_status()
        os.kill(owner.pid, sig)
        owner.wait(timeout=20)
    finally:
        if owner.poll() is None:
            owner.kill()
        owner.stdout.close()
    assert wait_until_gone(server_pid) == []
    assert refuses_connections(url)
