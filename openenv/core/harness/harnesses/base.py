"""What every harness is: a command for the sandbox, where installs live, and the errors."""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

MAX_INSTRUCTION_ARG = 100_000  # one argv string (Linux takes up to 128 KiB)
DEFAULT_STEP_LIMIT = 30


class HarnessUnavailable(RuntimeError):
    """A harness that is not installed (or cannot run here), and what to do about it."""


@dataclass
class HarnessCommand:
    """What the sandbox runs: an argv (``argv[0]`` absolute) and variables to add."""

    argv: list[str]
    env: dict[str, str] = field(default_factory=dict)


def harness_home() -> Path:
    """Where harnesses' installs live (readable by the sandbox's user)."""
    configured = os.environ.get("OPENENV_HARNESS_HOME")
    if configured:
        return Path(configured)
    if os.geteuid() == 0:
        return Path("/opt/openenv/harnesses")
    return Path.home() / ".cache" / "openenv" / "harnesses"


def check_instruction(name: str, instruction: str) -> None:
    """Refuse an instruction too long to pass as one argument."""
    size = len(instruction.encode())
    if size > MAX_INSTRUCTION_ARG:
        raise HarnessUnavailable(
            f"{name} takes the instruction as one argument: at most "
            f"{MAX_INSTRUCTION_ARG} bytes, this one has {size}"
        )


class Harness:
    """One agent program; subclasses say how it is installed and started."""

    name = ""
    dialect = ""  # the proxy dialect it speaks: chat, responses, messages, generateContent

    def problem(self) -> str | None:
        """Why it cannot run here (None when it can)."""
        return None

    def command(self, instruction: str, base_url: str, api_key: str, model: str) -> HarnessCommand:
        """The command that runs the agent on ``instruction`` against ``base_url`` (the capture
        proxy's ``/v1`` base)."""
        raise NotImplementedError

    def in_container(self) -> Harness:
        """This harness as a container sandbox runs it (its command, mounts and probe); itself
        unless its command names a host program the container sees elsewhere."""
        return self

    def mounts(self) -> dict[Path, str]:
        """Host paths a container sandbox mounts read-only, each with where the container sees
        it (its install at the same path)."""
        return {}

    def container_files(self) -> dict[str, str]:
        """Small generated files a container sandbox mounts read-only, each at its container
        path: what the container must see differently from the host (the install's own file
        under it is left as it is)."""
        return {}

    def probe(self) -> list[str] | None:
        """A quick command a container runs before the harness, to show that the harness can
        start in the task's image (None: nothing to check)."""
        return None

    def container_needs(self) -> str:
        """What a task's image must hold for this harness to run in it (one phrase)."""
        return "nothing of its own"

    def install(self) -> Path:
        """Install the harness under :func:`harness_home`; returns where it went."""
        raise HarnessUnavailable(f"{self.name} is not installed by this build")
