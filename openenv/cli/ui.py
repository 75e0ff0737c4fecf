"""Console output of the CLI: check marks, warnings and timed progress steps."""

from __future__ import annotations

import contextlib
import os
import sys
import time
from collections.abc import Iterator

_COLORS = {"green": "32", "red": "31", "yellow": "33", "dim": "2", "bold": "1"}


def _paint(text: str, color: str) -> str:
    if not sys.stdout.isatty() or os.environ.get("NO_COLOR"):
        return text
    return f"\033[{_COLORS[color]}m{text}\033[0m"


def ok(message: str) -> None:
    print(f"{_paint('✓', 'green')} {message}", flush=True)


def fail(message: str) -> None:
    print(f"{_paint('✗', 'red')} {message}", flush=True)


def warn(message: str) -> None:
    print(f"{_paint('!', 'yellow')} {message}", flush=True)


def info(message: str) -> None:
    print(message, flush=True)


def dim(text: str) -> str:
    return _paint(text, "dim")


def bold(text: str) -> str:
    return _paint(text, "bold")


@contextlib.contextmanager
def step(message: str) -> Iterator[None]:
    """Print ``message…`` now and ``done (1.2 s)`` when the block ends (or ``failed``)."""
    print(f"→ {message}…", flush=True)
    start = time.monotonic()
    try:
        yield
    except BaseException:
        print(f"  {_paint('failed', 'red')} after {time.monotonic() - start:.1f} s", flush=True)
        raise
    print(f"  {dim(f'done in {time.monotonic() - start:.1f} s')}", flush=True)


class CliError(Exception):
    """A problem the user can fix; the CLI prints the message and exits with ``code``."""

    def __init__(self, message: str, code: int = 1) -> None:
        super().__init__(message)
        self.code = code
