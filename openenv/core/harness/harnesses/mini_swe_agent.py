"""mini-swe-agent (PyPI ``mini-swe-agent``), in a virtualenv of its own made with the sandbox's
interpreter, since the sandbox's user cannot read the server's own interpreter.

In a container sandbox the virtualenv is mounted read-only at its own path and runs on the
interpreter it was made with, the host's, mounted read-only at ``/opt/openenv-python`` with the
shared libraries it needs and started by the image's own loader
(:mod:`~openenv.core.harness.harnesses.host_python`): an image with another Python (the real
``python:3.11-slim``'s, under ``/usr/local``) or none runs it, and keeps its own Python as it
is. Its probe checks the image's glibc and that the virtualenv's packages are found: a musl
image or an older glibc is refused before the agent starts.
"""

from __future__ import annotations

import copy
import os
import platform
import subprocess
from pathlib import Path

from openenv.core.harness.harnesses.base import (
    DEFAULT_STEP_LIMIT,
    Harness,
    HarnessCommand,
    HarnessUnavailable,
    check_instruction,
    harness_home,
)
from openenv.core.harness.harnesses.host_python import HostPython, host_python

# Whether the interpreter runs and finds the agent in the virtualenv (without importing it).
_IMPORTABLE = (
    "import importlib.util, sys; importlib.util.find_spec('minisweagent') or "
    "sys.exit('minisweagent is not importable: this python is not the one its virtualenv has')"
)


class MiniSweAgent(Harness):
    """mini-swe-agent's ``mini`` CLI, non-interactive (``-y --exit-immediately``), through
    litellm's OpenAI provider at the proxy; it stops when the model submits or at its step
    limit."""

    name = "mini-swe-agent"
    dialect = "chat"
    package = "mini-swe-agent==2.4.6"  # the version its tests and the scripted policy speak to

    def __init__(self, step_limit: int = DEFAULT_STEP_LIMIT, home: Path | None = None) -> None:
        self.step_limit = step_limit
        self.venv = (home or harness_home()) / self.name
        self.in_a_container = False  # set on the copy :meth:`in_container` makes

    @property
    def python(self) -> Path:
        """The virtualenv's interpreter."""
        return self.venv / "bin" / "python"

    def in_container(self) -> MiniSweAgent:
        clone = copy.copy(self)
        clone.in_a_container = True
        return clone

    def host_python(self) -> HostPython:
        """The virtualenv's interpreter as a container runs it (what to mount, how to start)."""
        return host_python(self.venv)

    def program(self) -> list[str]:
        """The argv prefix that starts the virtualenv's interpreter: itself on the host, the
        host's interpreter mounted in a container."""
        return self.host_python().argv() if self.in_a_container else [str(self.python)]

    def mounts(self) -> dict[Path, str]:
        found = {self.venv: str(self.venv)}
        if self.in_a_container:
            found.update(self.host_python().mounts())
        return found

    def container_files(self) -> dict[str, str]:
        return self.host_python().container_files() if self.in_a_container else {}

    def probe(self) -> list[str]:
        if not self.in_a_container:
            return [str(self.python), "-c", _IMPORTABLE]
        return [*self.program(), "-c", self.host_python().glibc_check() + _IMPORTABLE]

    def container_needs(self) -> str:
        try:
            return self.host_python().needs()
        except HarnessUnavailable:  # not installed: what it runs on shows once it is
            return f"a glibc Linux image ({platform.machine()}) (once installed: which glibc)"

    def problem(self) -> str | None:
        if not self.python.exists():
            return (
                f"{self.name} is not installed in {self.venv}: run "
                f"`openenv harbor install {self.name}` (a virtualenv from PyPI's {self.package})"
            )
        return None

    def command(self, instruction: str, base_url: str, api_key: str, model: str) -> HarnessCommand:
        check_instruction(self.name, instruction)
        argv = [
            *self.program(),
            "-m",
            "minisweagent.run.mini",
            "--yolo",
            "--exit-immediately",
            "--cost-limit",
            "0",
            "--model",
            f"openai/{model}",
            "--task",
            instruction,
            "--output",
            "/tmp/mini-swe-agent/trajectory.json",
            "--config",
            "mini.yaml",
            "--config",
            f"model.model_kwargs.api_base={base_url}",
            "--config",
            f"agent.step_limit={self.step_limit}",
        ]
        env = {
            "OPENAI_API_KEY": api_key,
            "OPENAI_API_BASE": base_url,
            "MSWEA_CONFIGURED": "true",  # no first-run setup prompt
            "MSWEA_SILENT_STARTUP": "1",
            "MSWEA_COST_TRACKING": "ignore_errors",  # a local model has no price
            "MSWEA_GLOBAL_CONFIG_DIR": "/tmp/mini-swe-agent",
            "LITELLM_LOCAL_MODEL_COST_MAP": "True",  # no price-list download at import
            "LITELLM_TELEMETRY": "False",
            "NO_COLOR": "1",
            "TERM": "dumb",
        }
        return HarnessCommand(argv, env)

    def install(self) -> Path:
        """Make the virtualenv with the sandbox's interpreter and install from PyPI; idempotent
        (pip upgrades nothing that is there)."""
        from openenv.sandbox.isolation import sandbox_python

        old = os.umask(0o022)  # the sandbox's user must read it
        try:
            self.venv.parent.mkdir(parents=True, exist_ok=True)
            if not self.python.exists():
                subprocess.run([sandbox_python(), "-m", "venv", str(self.venv)], check=True)
            pip = [str(self.python), "-m", "pip", "install", "--quiet"]
            subprocess.run([*pip, self.package], check=True)
        finally:
            os.umask(old)
        return self.venv
