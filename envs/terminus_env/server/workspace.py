"""The working directory of a session, read and written *through its sandbox*.

Setting a task up writes its files, and checking it reads them back, with Python run inside the
sandbox (as the agent's commands are), relative to ``$HOME`` there: the server never opens a
path the agent could have pointed somewhere else (a symlink into the host, another session).
What is read back is bounded (``READ_LIMIT`` bytes per file).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field

from openenv.sandbox.shell import Shell

READ_LIMIT = 65_536

_CODE = r"""
import json as _oe_json, os as _oe_os


def _oe_write(files):
    home = _oe_os.environ["HOME"]
    for rel, text in files.items():
        path = _oe_os.path.join(home, rel)
        _oe_os.makedirs(_oe_os.path.dirname(path), exist_ok=True)
        with open(path, "w", encoding="utf-8") as f:
            f.write(text)


def _oe_read(files, dirs, limit):
    home = _oe_os.environ["HOME"]
    out = {"files": {}, "dirs": {}}
    for rel in files:
        try:
            with open(_oe_os.path.join(home, rel), "rb") as f:
                out["files"][rel] = f.read(limit).decode("utf-8", "replace")
        except OSError:
            out["files"][rel] = None
    for rel in dirs:
        try:
            out["dirs"][rel] = sorted(_oe_os.listdir(_oe_os.path.join(home, rel)))
        except OSError:
            out["dirs"][rel] = None
    return out
"""


@dataclass
class Snapshot:
    """Files (text, or None when missing) and directory listings (None when missing)."""

    files: dict[str, str | None] = field(default_factory=dict)
    dirs: dict[str, list[str] | None] = field(default_factory=dict)


class WorkspaceError(RuntimeError):
    """The sandbox could not read or write the working directory."""


def write_files(shell: Shell, files: dict[str, str]) -> None:
    """Create ``files`` (relative path: text) in the working directory."""
    if files:
        _call(shell, f"_oe_write(_oe_json.loads({json.dumps(files)!r}))")


def read(shell: Shell, files: list[str] = (), dirs: list[str] = ()) -> Snapshot:  # type: ignore[assignment]
    """Read ``files`` and list ``dirs`` (relative paths) in the working directory."""
    args = json.dumps([list(files), list(dirs), READ_LIMIT])
    out = _call(shell, f"print(_oe_json.dumps(_oe_read(*_oe_json.loads({args!r}))))")
    data = json.loads(out)
    return Snapshot(files=data["files"], dirs=data["dirs"])


def _call(shell: Shell, line: str) -> str:
    stdout, stderr, code = shell.python(f"{_CODE}\n{line}")
    if code != 0:
        raise WorkspaceError(stderr.strip().splitlines()[-1] if stderr.strip() else "failed")
    return stdout
