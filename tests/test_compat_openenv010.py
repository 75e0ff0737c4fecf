"""Wire compatibility with ``openenv==0.10.0`` from PyPI, both ways, in a separate virtualenv.

(a) the reference client drives our grid world server; (b) our client drives a server built
with the reference package (tests/compat/ref_grid_app.py). The virtualenv is created once and
cached (tests/compat/refvenv.py).
"""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from conftest import ROOT, free_port, serve, stop_process_group, wait_healthy
from grid_world_env import GridWorldAction, GridWorldEnv, GridWorldState
from websockets.asyncio.client import connect

from openenv.client import GenericEnvClient
from openenv.core import ClientError

COMPAT = ROOT / "tests" / "compat"
sys.path.insert(0, str(COMPAT))
from refvenv import ensure_ref_venv  # noqa: E402

pytestmark = pytest.mark.compat
WALK = ["DOWN"] * 4 + ["RIGHT"] * 4


@pytest.fixture(scope="session")
def ref_python() -> Path:
    return ensure_ref_venv()


@pytest.fixture(scope="module")
def our_server() -> Iterator[str]:
    with serve("grid_world_env.server.app:app", env={"ENABLE_WEB_INTERFACE": "0"}) as url:
        yield url


@pytest.fixture(scope="module")
def ref_process(ref_python: Path) -> Iterator[tuple[subprocess.Popen, str]]:
    """Start the reference server early: its imports take seconds, so they overlap (a)."""
    port = free_port()
    cmd = [str(ref_python), "-m", "uvicorn", "ref_grid_app:app", "--host", "127.0.0.1"]
    cmd += ["--port", str(port), "--log-level", "warning"]
    # cwd is tests/compat, so the reference's `openenv` is imported, never ours.
    proc = subprocess.Popen(cmd, cwd=COMPAT, env={**os.environ}, start_new_session=True)
    try:
        yield proc, f"http://127.0.0.1:{port}"
    finally:
        stop_process_group(proc)


@pytest.fixture(scope="module")
def ref_server(ref_process: tuple[subprocess.Popen, str]) -> str:
    proc, url = ref_process
    wait_healthy(url, proc, timeout=180)
    return url


# -- (a) the reference client against our server ---------------------------------------------


@pytest.fixture(scope="module")
def reference_report(ref_python: Path, our_server: str, ref_process: object) -> dict:
    done = subprocess.run(
        [str(ref_python), str(COMPAT / "drive_our_server.py"), our_server],
        cwd=COMPAT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_reference_generic_client_walks_our_grid_to_the_goal(reference_report: dict) -> None:
    seen = reference_report["generic"]
    assert seen["reset"]["observation"]["x"] == 0
    assert seen["reset"]["done"] is False
    assert seen["rewards"] == pytest.approx([-0.1] * 7 + [1.0])
    assert seen["final"]["done"] is True
    assert (seen["final"]["observation"]["x"], seen["final"]["observation"]["y"]) == (4, 4)
    assert seen["state"]["episode_id"] == "ref-generic"
    assert seen["state"]["step_count"] == 8


def test_reference_client_sees_our_errors_and_keeps_its_session(reference_report: dict) -> None:
    seen = reference_report["generic"]
    assert "VALIDATION_ERROR" in seen["invalid"]
    assert "DIAGONAL" not in seen["invalid"] or "action" in seen["invalid"]
    assert seen["after_invalid"]["x"] == 1


def test_reference_typed_client_walks_our_grid(reference_report: dict) -> None:
    seen = reference_report["typed"]
    assert seen["final"] == {"x": 4, "y": 4, "reward": 1.0, "done": True}
    assert seen["state"] == {"episode_id": "ref-typed", "step_count": 8}
    assert "SESSION_ERROR" in seen["after_done"]
    assert "reset" in seen["after_done"]


# -- (b) our client against the reference server ---------------------------------------------


async def test_our_typed_client_drives_the_reference_server(ref_server: str) -> None:
    async with GridWorldEnv(base_url=ref_server) as env:
        first = await env.reset(episode_id="ours-typed")
        assert (first.observation.x, first.done) == (0, False)
        for move in WALK:
            result = await env.step(GridWorldAction(action=move))
        assert (result.observation.x, result.observation.y) == (4, 4)
        assert (result.reward, result.done) == (1.0, True)
        state = await env.state()
        assert isinstance(state, GridWorldState)
        assert (state.episode_id, state.step_count, state.x) == ("ours-typed", 8, 4)


def test_our_generic_sync_client_drives_the_reference_server(ref_server: str) -> None:
    with GenericEnvClient(base_url=ref_server).sync() as env:
        env.reset(seed=1)
        result = env.step({"action": "RIGHT"})
        assert (result.observation["y"], result.reward, result.done) == (1, -0.1, False)
        assert env.state()["step_count"] == 1
        with pytest.raises(ClientError) as refused:
            env.step({"action": "DIAGONAL"})
        assert refused.value.server_code == "VALIDATION_ERROR"
        assert env.step({"action": "DOWN"}).observation["x"] == 1  # still usable


async def test_our_client_sends_request_ids_only_to_servers_that_advertise_them(
    ref_server: str,
) -> None:
    # The reference refuses unknown keys such as request_id and sends no features header...
    async with connect(ref_server.replace("http", "ws") + "/ws") as ws:
        assert "x-openenv-features" not in ws.response.headers
        await ws.send(json.dumps({"type": "reset", "data": {}, "request_id": "r1"}))
        refused = json.loads(await asyncio.wait_for(ws.recv(), 20))
        assert refused["data"]["code"] == "VALIDATION_ERROR"
    # ...so every call of our client succeeding there shows it sent none.
    async with GenericEnvClient(base_url=ref_server) as env:
        await env.reset()
        await env.step({"action": "DOWN"})
        assert (await env.state())["step_count"] == 1
