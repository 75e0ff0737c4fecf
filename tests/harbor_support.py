"""What the Harbor tests share: the process sandbox (skipped where the machine allows none),
mini-swe-agent in its virtualenv (installed from PyPI once per machine when missing), a Harbor
server of the shipped tasks, the capture level of a trainable endpoint and the test engine's
model name."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

import pytest
from servers import served

from openenv.core.harness.capture import CaptureLevel
from openenv.core.harness.harnesses import MiniSweAgent, install_harness
from openenv.core.harness.sandboxes import agent_network
from openenv.sandbox.isolation import SandboxUnavailable

# A [TRAIN] endpoint (the test engine's level), and the model name rollouts ask it for.
TRAIN = CaptureLevel(capture_level="tokens", rollout_type="train", logprobs_mode="processed")
MODEL = "openenv/tiny-test-lm"


def sandbox_or_skip() -> None:
    """Skip the test where no process sandbox can be made (no namespaces allowed)."""
    try:
        agent_network()  # the agent's own network namespace, or host network where allowed
    except SandboxUnavailable as exc:
        pytest.skip(f"no process sandbox here: {exc}")


def mini_swe_agent() -> MiniSweAgent:
    """mini-swe-agent, installed, in a machine with a process sandbox (or the test skipped)."""
    sandbox_or_skip()
    mini = MiniSweAgent()
    if mini.problem():
        install_harness("mini-swe-agent")  # from PyPI, once per machine
    assert mini.problem() is None
    return mini


@contextlib.contextmanager
def shipped_server(split: str = "shipped") -> Iterator[str]:
    """A Harbor server (no web UI) of the shipped tasks as ``split`` on loopback, without a model
    endpoint (the scripted TEST engine plays, a [TRAIN] capture); yields its URL."""
    from openenv.core.harness.tasks import load_tasks, shipped_tasks
    from openenv.harbor import Endpoints, HarborService
    from openenv.harbor.app import create_harbor_app

    service = HarborService({split: load_tasks(shipped_tasks())}, Endpoints())
    try:
        with served(create_harbor_app(service, enable_web=False)) as base:
            yield base
    finally:
        service.close()
