"""One session's interpreter: ``openenv.sandbox.Sandbox`` driven like a REPL.

The sandbox runs cells and returns their output; this module adds what a REPL needs on top,
without a second sandbox: the first cell of every interpreter installs the helpers of
``prelude.py`` (``FINAL``, ``answer``, ``context``...), each cell runs through them (the value
of a last expression is printed), and a second, internal cell reads back the names defined and
any answer submitted. When the sandbox had to restart (a time-out, a crash), the helpers and
``context`` are installed again in the new interpreter before the next cell.
"""

from __future__ import annotations

import json
import re
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from openenv.sandbox import Sandbox, SandboxLimits

PRELUDE = Path(__file__).with_name("prelude.py").read_text(encoding="utf-8")
_FINAL_LINE = re.compile(r"^\s*FINAL\((.*)\)\s*$")
_FINAL_VAR_LINE = re.compile(r"^\s*FINAL_VAR\(\s*['\"]?([A-Za-z_]\w*)['\"]?\s*\)\s*$")


@dataclass
class Cell:
    """What running one cell gave."""

    stdout: str = ""
    stderr: str = ""
    exit_code: int = 0
    seconds: float = 0.0
    names: list[str] = field(default_factory=list)
    changed: dict[str, str] = field(default_factory=dict)
    final: str | None = None  # the answer the cell submitted, if any
    restarted: bool = False  # the interpreter was killed (a limit): variables are gone

    @property
    def exception(self) -> str | None:
        """The last line of a traceback (``ZeroDivisionError: division by zero``)."""
        if self.exit_code == 0:
            return None
        lines = [line for line in self.stderr.strip().splitlines() if line.strip()]
        return lines[-1] if lines else f"exit code {self.exit_code}"


class Repl:
    """A persistent interpreter in a sandbox, with ``context`` loaded and the helpers."""

    def __init__(self, limits: SandboxLimits, context: str | None) -> None:
        self._sandbox = Sandbox(limits)
        self._context = context
        self._names: list[str] = []

    def run(self, code: str) -> Cell:
        """Run ``code`` as one cell and read back the names and any submitted answer."""
        start = time.monotonic()
        primed = self._prime()
        if primed is not None:
            return primed
        result = self._sandbox.run(f"__repl__.run({code!r})")
        cell = Cell(result.stdout, result.stderr, result.exit_code)
        cell.seconds = time.monotonic() - start
        if self._sandbox.workdir is None:  # killed at a limit: a fresh interpreter next time
            cell.restarted, self._names = True, []
            return cell
        self._read_back(cell)
        return cell

    def check(self, function: str, cases: list[list[Any]]) -> dict[str, Any]:
        """Call ``function`` on each case in the interpreter: ``{"values": [...]}`` or
        ``{"error": why}``."""
        primed = self._prime()
        if primed is not None:
            return {"error": primed.stderr.strip()}
        result = self._sandbox.run(f"__repl__.check({function!r}, {json.dumps(cases)!r})")
        if result.exit_code != 0:
            return {"error": (result.stderr.strip().splitlines() or ["the tests crashed"])[-1]}
        try:
            return json.loads(result.stdout.splitlines()[-1])
        except (ValueError, IndexError):
            return {"error": "the tests printed no results (was __repl__ replaced?)"}

    @property
    def names(self) -> list[str]:
        return list(self._names)

    def close(self) -> None:
        self._sandbox.close()

    # -- internals ------------------------------------------------------------------------

    def _prime(self) -> Cell | None:
        """Install the helpers in a fresh interpreter; a Cell only when that failed."""
        if self._sandbox.workdir is not None:
            return None
        setup = (
            f"exec(compile({PRELUDE!r}, '<repl helpers>', 'exec'), {{'__name__': 'repl'}})\n"
            f"__repl__.install(globals(), {self._context!r})\n"
        )
        result = self._sandbox.run(setup)
        if result.exit_code == 0:
            return None
        self._sandbox.close()
        return Cell("", "repl: could not start the interpreter\n" + result.stderr, 1)

    def _read_back(self, cell: Cell) -> None:
        var = _final_var(cell.stdout)
        report = self._sandbox.run(f"__repl__.report({var!r})")
        try:
            data = json.loads(report.stdout.strip().splitlines()[-1])
        except (ValueError, IndexError):
            data = {}  # the cell broke the helpers: nothing to read back
        self._names = [str(n) for n in data.get("names", [])]
        cell.names = list(self._names)
        cell.changed = {str(k): str(v) for k, v in (data.get("changed") or {}).items()}
        final = data.get("final")
        cell.final = str(final) if final is not None else _final_printed(cell.stdout)


def _final_printed(stdout: str) -> str | None:
    """``FINAL(answer)`` printed on a line of its own (the reference's print pattern)."""
    for line in stdout.splitlines():
        match = _FINAL_LINE.match(line)
        if match:
            return match.group(1).strip()
    return None


def _final_var(stdout: str) -> str | None:
    for line in stdout.splitlines():
        match = _FINAL_VAR_LINE.match(line)
        if match:
            return match.group(1)
    return None
