"""Our ``openenv collect`` and the reference 0.10's, against the same grid world server: the
same files with the same fields (results.jsonl records, their tool_trace entries,
metadata.json). The reference's command only knows its openspiel and reasoning_gym sessions;
its own module lets a test swap them (its docstring says so): the script below gives it a
grid world session made of the reference's StepEnvSessionAdapter, driven by its scripted
teacher, in the reference's virtualenv (tests/compat/refvenv.py)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from conftest import ROOT, free_port, run_cli, serve, server_process

sys.path.insert(0, str(ROOT / "tests" / "compat"))
from refvenv import ensure_ref_venv

pytestmark = pytest.mark.compat

REFERENCE_SCRIPT = """
import sys

from openenv.cli.commands import collect as cli
from openenv.core.env_server.mcp_types import Tool
from openenv.core.generic_client import GenericEnvClient
from openenv.core.harness.rollout import ResourceSessionFactory, StepEnvSessionAdapter

MOVES = ["UP", "DOWN", "LEFT", "RIGHT"]
TOOL = Tool(
    name="play_move",
    description="Move the agent",
    input_schema={"type": "object", "properties": {"action_id": {"type": "integer"}}},
)


class GridFactory(ResourceSessionFactory):
    def __init__(self, make_client, game_name):
        self.make_client = make_client

    def create(self, task, seed=None, episode_id=None):
        return StepEnvSessionAdapter(
            self.make_client(),
            task=task,
            seed=seed,
            episode_id=episode_id,
            tool_specs=[TOOL],
            action_builder=lambda name, args: {"action": MOVES[int(args["action_id"])]},
            initial_messages_builder=lambda result, task: [
                {"role": "user", "content": f"{result.observation} Legal actions: [1, 3]"}
            ],
        )


cli.OpenSpielEnv = GenericEnvClient
cli.OpenSpielSessionFactory = GridFactory
cli.app(sys.argv[1:])
"""


@pytest.fixture(scope="module")
def grid_api() -> Iterator[str]:
    with serve("grid_world_env.server.app:app", env={"ENABLE_WEB_INTERFACE": "0"}) as url:
        yield url


def records(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def test_our_collect_writes_the_fields_the_reference_collect_writes(
    grid_api: str, tmp_path: Path
) -> None:
    script = tmp_path / "reference_collect.py"
    script.write_text(REFERENCE_SCRIPT)
    common = ["--base-url", grid_api, "-n", "2", "--max-turns", "3", "--keep-losses"]
    theirs = subprocess.run(
        [str(ensure_ref_venv()), str(script), "openspiel:grid", "-o", str(tmp_path / "ref"),
         *common],
        cwd=tmp_path, capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert theirs.returncode == 0, theirs.stdout + theirs.stderr
    ours = run_cli("collect", "grid_world", "-o", str(tmp_path / "ours"), *common, cwd=tmp_path)
    assert ours.returncode == 0, ours.stdout + ours.stderr

    ref, our = (
        records(tmp_path / "ref" / "results.jsonl"),
        records(tmp_path / "ours" / "results.jsonl"),
    )
    assert (
        [r["episode_id"] for r in ref]
        == [r["episode_id"] for r in our]
        == ["ep-000000", "ep-000001"]
    )
    for a, b in zip(ref, our, strict=True):
        assert list(a) == list(b)  # the same fields, in the same order
        both = [k for k in a if a[k] is not None and b[k] is not None]  # task: None there
        assert [type(a[k]) for k in both] == [type(b[k]) for k in both] and len(both) >= 9
        for step_a, step_b in zip(a["tool_trace"], b["tool_trace"], strict=True):
            assert set(step_a) == set(step_b) == {"tool_name", "arguments", "result"}
            assert set(step_a["result"]) == set(step_b["result"])
        # both policies walk down three cells: the same rewards, the same meaning of reward
        assert a["reward"] == b["reward"] == -0.1 and a["done"] is b["done"] is False
        assert all({"role", "content"} <= set(m) for m in a["messages"] + b["messages"])

    ref_meta = json.loads((tmp_path / "ref" / "metadata.json").read_text())
    our_meta = json.loads((tmp_path / "ours" / "metadata.json").read_text())
    assert set(ref_meta) <= set(our_meta)
    same = ("env_base_url", "provider", "model", "llm_endpoint", "llm_port", "keep_losses")
    assert {k: our_meta[k] for k in same} == {k: ref_meta[k] for k in same}
    assert our_meta["num_episodes_requested"] == ref_meta["num_episodes_requested"] == 2


@pytest.fixture(scope="module")
def reference_server() -> Iterator[str]:
    """The grid world built with the reference package (tests/compat/ref_grid_app.py)."""
    port = free_port()
    cmd = [str(ensure_ref_venv()), "-m", "uvicorn", "ref_grid_app:app", "--host", "127.0.0.1"]
    cmd += ["--port", str(port), "--log-level", "warning"]
    # cwd is tests/compat, so the reference's `openenv` is imported, never ours.
    with server_process(cmd, port, cwd=ROOT / "tests" / "compat", env={**os.environ}) as url:
        yield url


def test_our_collect_plays_a_server_built_with_the_reference(
    reference_server: str, tmp_path: Path
) -> None:
    # The reference lists no legal actions: the random policy draws from the action schema.
    done = run_cli(
        "collect", "grid_world", "--base-url", reference_server, "-o", "run", "-n", "3",
        "--max-turns", "5", "--provider", "random", "--keep-losses",
        cwd=tmp_path,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    runs = records(tmp_path / "run" / "results.jsonl")
    assert [len(r["tool_trace"]) for r in runs] == [5, 5, 5]
    moves = {s["arguments"]["action"] for r in runs for s in r["tool_trace"]}
    assert moves <= {"UP", "DOWN", "LEFT", "RIGHT"} and len(moves) > 1
    assert all("Legal actions" not in m["content"] for r in runs for m in r["messages"])
    assert all(r["reward"] == -0.1 for r in runs)
