"""Where Julia comes from, and how one run happens: the runtime seam of this env.

:func:`find_julia` looks for the binary (``JULIA_BIN``, else ``julia`` on ``PATH``).
:class:`SandboxJulia` runs it in the project's one sandbox (:mod:`openenv.sandbox`): a
:class:`~openenv.sandbox.shell.Shell` per episode, with the limits of this package's manifest
``sandbox:`` block (``CODING_*`` override), no network, the files of a run written into the
sandbox's working directory, and ``JULIA_DEPOT_PATH`` pointed there (so Julia writes nothing
outside it). When no binary is found, :data:`NOT_INSTALLED` is what every observation says.

No package registry this project installs from carries a Julia build (Debian dropped its
``julia`` package; PyPI's installers download binaries from the internet at run time), so
the binary is the operator's to provide: a Julia image, or ``JULIA_BIN=/opt/julia/bin/julia``.
"""

from __future__ import annotations

import json
import os
import shutil
from dataclasses import dataclass

from openenv.sandbox.isolation import SandboxUnavailable
from openenv.sandbox.sandbox import SandboxLimits
from openenv.sandbox.shell import Shell

JULIA_SETTING = "JULIA_BIN"
NOT_INSTALLED = (
    "Julia is not installed on this server, so no code can run: install Julia (julialang.org) "
    f"and put `julia` on PATH, or set {JULIA_SETTING} to its binary, then restart the server"
)
JULIA_FLAGS = ("--startup-file=no", "--history-file=no", "--color=no", "--banner=no")


def find_julia() -> str | None:
    """The Julia binary this server uses, or None."""
    configured = os.environ.get(JULIA_SETTING, "").strip()
    if configured:
        return configured if os.access(configured, os.X_OK) else None
    return shutil.which("julia")


@dataclass(frozen=True)
class RunOutput:
    output: str  # stdout and stderr, merged
    exit_code: int | None
    error: str = ""  # the run could not happen or was cut: why


class SandboxJulia:
    """Julia runs in one sandbox per episode (started on the first run, closed at reset)."""

    def __init__(self, binary: str, limits: SandboxLimits | None = None) -> None:
        self.binary = binary
        self.limits = limits or SandboxLimits.for_package("julia_env")
        self._shell: Shell | None = None

    def run(self, files: dict[str, str]) -> RunOutput:
        """Write ``files`` into the working directory and run ``julia run.jl`` there."""
        try:
            shell = self._shell = self._shell or Shell(self.limits)
            writer = (
                "import json\nfor name, text in json.loads("
                + repr(json.dumps(files))
                + ").items():\n    open(name, 'w', encoding='utf-8').write(text)\n"
            )
            _, err, code = shell.python(writer)
            if code != 0:
                return RunOutput("", None, f"the sandbox could not take the files: {err.strip()}")
            depot = f"{shell.home}/.julia:"  # the trailing ':' keeps the bundled stdlib
            result = shell.run(
                [self.binary, *JULIA_FLAGS, "run.jl"], env={"JULIA_DEPOT_PATH": depot}
            )
        except SandboxUnavailable as exc:
            return RunOutput("", None, f"the sandbox is unavailable here: {exc}")
        if result.sandbox_error:
            self.close()
            return RunOutput(result.output, None, result.sandbox_error.strip())
        note = result.text(self.limits.timeout_s) if result.timed_out or result.dropped else ""
        error = note.rsplit("\n", 1)[-1] if note else ""
        return RunOutput(result.output, result.exit_code, error)

    def close(self) -> None:
        shell, self._shell = self._shell, None
        if shell is not None:
            shell.close()
