"""Harbor rollouts in the Docker sandbox (the Docker lane): the task's own image built from its
environment/Dockerfile, mini-swe-agent (its virtualenv mounted read-only) against the capture
proxy and the shipped scripted TEST engine, the verifier writing /logs/verifier/reward.txt;
every container removed afterwards, a hanging harness included."""

from __future__ import annotations

import subprocess
import uuid
from pathlib import Path

import pytest
from harbor_support import MODEL, TRAIN

from openenv.core.harness.capture import CaptureProxy, Upstream, create_capture_app
from openenv.core.harness.docker_sandbox import docker_problem
from openenv.core.harness.engine import Engine, create_engine_app
from openenv.core.harness.engine.script import bash_policy
from openenv.core.harness.harnesses import Harness, HarnessCommand, MiniSweAgent, install_harness
from openenv.core.harness.loopback import serve_in_thread
from openenv.core.harness.rollout import RolloutResult, run_rollout
from openenv.core.harness.tasks import HarborTask, load_task, shipped_tasks
from tests.docker.lane import lane_not_run

BASE_IMAGE = "python:3.11-slim"  # what the shipped tasks' Dockerfiles start FROM


@pytest.fixture(scope="module")
def docker() -> None:
    problem = docker_problem()
    if problem:
        lane_not_run(problem + ".")
    if subprocess.run(["docker", "image", "inspect", BASE_IMAGE], capture_output=True).returncode:
        lane_not_run(f"the base image {BASE_IMAGE} is not on the engine (no registry here).")


@pytest.fixture(scope="module")
def harness(docker: None) -> MiniSweAgent:
    mini = MiniSweAgent()
    if mini.problem():
        install_harness("mini-swe-agent")
    return mini


def _containers(label: str = "openenv.harbor") -> list[str]:
    ran = subprocess.run(
        ["docker", "ps", "-aq", "--filter", f"label={label}"], capture_output=True, check=True
    )
    return ran.stdout.decode().split()


def rollout(
    t: HarborTask, harness: Harness, commands: list[str], timeout: float | None = None
) -> RolloutResult:
    with serve_in_thread(create_engine_app(Engine(script=bash_policy(commands)))) as engine:
        proxy = CaptureProxy(Upstream(f"{engine}/v1", model=MODEL), TRAIN)
        with serve_in_thread(create_capture_app(proxy)) as proxy_url:
            return run_rollout(
                t,
                proxy=proxy,
                proxy_url=proxy_url,
                harness=harness,
                model=MODEL,
                sandbox="docker",
                agent_timeout_s=timeout,
            )


def test_mini_swe_agent_solves_a_task_in_its_own_container(harness: MiniSweAgent) -> None:
    before = set(_containers())
    t = load_task(shipped_tasks() / "fix-add")
    solve = (t.path / "solution" / "solve.sh").read_text().strip()
    result = rollout(t, harness, [solve])
    assert result.status == "ok", (result.reason, result.log_tail)
    assert (result.sandbox, result.reward) == ("docker", 1.0)
    assert result.trace is not None and len(result.trace.turns) == 2
    assert set(_containers()) <= before  # its container is gone


def test_an_idle_policy_gets_reward_0_in_docker(harness: MiniSweAgent) -> None:
    result = rollout(load_task(shipped_tasks() / "hello-file"), harness, ["ls -la"])
    assert result.status == "ok", (result.reason, result.log_tail)
    assert result.reward == 0.0
    assert "hello.txt is missing or wrong" in result.verifier_output


class HangingHarness(Harness):
    """A TEST harness that never ends."""

    name = "test-hanging-harness"

    def command(self, instruction: str, base_url: str, api_key: str, model: str) -> HarnessCommand:
        return HarnessCommand(["sleep", "600"])


def test_a_hanging_harness_is_stopped_and_its_container_removed(docker: None) -> None:
    before = set(_containers())
    t = load_task(shipped_tasks() / "hello-file")
    result = rollout(t, HangingHarness(), [], timeout=2.0)
    assert result.status == "timeout", (result.reason, result.log_tail)
    assert result.reward == 0.0  # the verifier ran after the harness was killed
    assert set(_containers()) <= before


def test_a_task_whose_image_does_not_build_fails_with_the_reason(
    harness: MiniSweAgent, tmp_path: Path
) -> None:
    src = shipped_tasks() / "hello-file"
    task_dir = tmp_path / f"broken-{uuid.uuid4().hex[:6]}"
    subprocess.run(["cp", "-r", str(src), str(task_dir)], check=True)
    (task_dir / "environment" / "Dockerfile").write_text("FROM python:3.11-slim\nRUN exit 3\n")
    result = rollout(load_task(task_dir), harness, ["ls"])
    assert result.status == "error"
    assert result.reason.startswith(f"docker build of {task_dir.name}: ")
