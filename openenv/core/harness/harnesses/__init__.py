"""Harnesses: the coding agents a rollout runs, each pointed at the capture proxy.

A harness turns (instruction, proxy base URL, session key, model) into the command a sandbox
runs. The session id is the agent's API key, so every call it makes is captured under this
rollout. Nothing a harness runs may reach the network beyond the proxy: telemetry, update checks
and price-list or model-list downloads are switched off by their flags and variables, and each
runs in its non-interactive, auto-approving mode (the rollout's sandbox is what holds it).

Each is installed by ``openenv harbor install NAME`` under ``$OPENENV_HARNESS_HOME`` (default
``/opt/openenv/harnesses`` as root, ``~/.cache/openenv/harnesses`` otherwise), readable by the
sandbox's user: mini-swe-agent in a virtualenv (PyPI), the others a pinned npm package each
(codex, claude-code, opencode, gemini-cli), run with the host's Node. ``openenv harbor install
harbor`` puts the harbor package there too, in a Python >= 3.12 virtualenv of its own.
"""

from __future__ import annotations

from pathlib import Path

from openenv.core.harness.harnesses.base import (
    DEFAULT_STEP_LIMIT,
    MAX_INSTRUCTION_ARG,
    Harness,
    HarnessCommand,
    HarnessUnavailable,
    harness_home,
)
from openenv.core.harness.harnesses.claude_code import ClaudeCode
from openenv.core.harness.harnesses.codex import Codex
from openenv.core.harness.harnesses.gemini_cli import GeminiCli
from openenv.core.harness.harnesses.mini_swe_agent import MiniSweAgent
from openenv.core.harness.harnesses.npm import NpmHarness
from openenv.core.harness.harnesses.opencode import OpenCode

HARNESSES: dict[str, type[Harness]] = {
    "mini-swe-agent": MiniSweAgent,
    "codex": Codex,
    "claude-code": ClaudeCode,
    "opencode": OpenCode,
    "gemini-cli": GeminiCli,
}


def get_harness(name: str) -> Harness:
    """The harness called ``name``; a clear error naming the known ones otherwise."""
    kind = HARNESSES.get(name)
    if kind is None:
        known = ", ".join(sorted(HARNESSES))
        raise HarnessUnavailable(f"unknown harness {name!r}: this build runs {known}")
    return kind()


def install_harness(name: str, *, home: Path | None = None) -> Path:
    """Install the harness called ``name`` under ``home`` (default :func:`harness_home`);
    returns its install (a virtualenv, or an npm prefix). Idempotent. ``harbor`` is no harness
    but is installed the same way: the harbor package, whose task model checks ours
    (:mod:`openenv.core.harness.harbor_pypi`)."""
    if name == "harbor":
        from openenv.core.harness.harbor_pypi import install_harbor

        return install_harbor(home)
    kind = HARNESSES.get(name)
    if kind is None:
        get_harness(name)  # raises, naming the known ones
    assert kind is not None
    return kind(home=home).install()  # type: ignore[call-arg]


__all__ = [
    "DEFAULT_STEP_LIMIT",
    "HARNESSES",
    "MAX_INSTRUCTION_ARG",
    "ClaudeCode",
    "Codex",
    "GeminiCli",
    "Harness",
    "HarnessCommand",
    "HarnessUnavailable",
    "MiniSweAgent",
    "NpmHarness",
    "OpenCode",
    "get_harness",
    "harness_home",
]
