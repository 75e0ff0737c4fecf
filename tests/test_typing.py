"""mypy passes on the library (``[tool.mypy]`` in pyproject.toml), and a user's code that calls
a typed client is checked end to end: ``env.sync().step(action).observation`` has the
client's observation type."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def mypy(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "mypy", *args],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )


def check_snippet(tmp_path: Path, source: str) -> subprocess.CompletedProcess[str]:
    """mypy with the project's settings on one file that imports the grid world's client."""
    snippet = tmp_path / "snippet.py"
    snippet.write_text(textwrap.dedent(source))
    # The editable install finds env packages with an import hook, which mypy cannot follow:
    # point it at envs/ (the repository root, for openenv, is the working directory).
    env = {**os.environ, "MYPYPATH": str(ROOT / "envs")}
    cache = ["--cache-dir", str(tmp_path / "mypy_cache")]
    return mypy("--config-file", str(ROOT / "pyproject.toml"), *cache, str(snippet), env=env)


def test_mypy_reports_no_errors() -> None:
    done = mypy()
    assert done.returncode == 0, done.stdout + done.stderr


def test_a_sync_step_returns_the_clients_observation_type(tmp_path: Path) -> None:
    done = check_snippet(
        tmp_path,
        """
        from typing import Any

        from grid_world_env import (
            GridWorldAction, GridWorldEnv, GridWorldObservation, GridWorldState,
        )
        from openenv.client import GenericEnvClient

        def f(env: GridWorldEnv) -> GridWorldObservation:
            return env.sync().step(GridWorldAction(action="UP")).observation

        def f_state(env: GridWorldEnv) -> GridWorldState:
            with env.sync() as blocking:
                return blocking.state()

        async def f_async(env: GridWorldEnv) -> GridWorldObservation:
            async with env as connected:
                await connected.reset(seed=0)
                return (await connected.step({"action": "UP"})).observation

        async def f_generic(env: GenericEnvClient) -> dict[str, Any]:
            return (await env.reset()).observation
        """,
    )
    assert done.returncode == 0, done.stdout + done.stderr


def test_a_wrong_observation_type_is_an_error(tmp_path: Path) -> None:
    done = check_snippet(
        tmp_path,
        """
        from grid_world_env import GridWorldAction, GridWorldEnv

        def g(env: GridWorldEnv) -> int:
            return env.sync().step(GridWorldAction(action="UP")).observation

        async def g_async(env: GridWorldEnv) -> int:
            async with env as connected:
                return await connected.state()
        """,
    )
    assert done.returncode == 1, done.stdout + done.stderr
    assert "Incompatible return value type" in done.stdout, done.stdout + done.stderr
    assert 'got "GridWorldObservation", expected "int"' in done.stdout, done.stdout
    assert 'got "GridWorldState", expected "int"' in done.stdout, done.stdout
