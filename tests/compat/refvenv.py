"""A cached virtualenv with the reference ``openenv`` package from PyPI (for compat and bench).

``ensure_ref_venv()`` creates ``~/.cache/openenv-playground/ref-venv-<version>`` once (with
``pip install`` of :data:`REQUIREMENTS`) and returns its python. Later calls reuse it (and
install what the list gained since it was made).
Set ``OPENENV_REF_VENV`` to use another directory.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

REF_VERSION = "0.10.0"
# chess: the reference-style chess env of tests/compat/ref_envs (a FEN field).
REQUIREMENTS = [f"openenv=={REF_VERSION}", "websockets", "chess"]
MARKER = ".openenv-ready"


def ref_venv_dir() -> Path:
    default = Path.home() / ".cache" / "openenv-playground" / f"ref-venv-{REF_VERSION}"
    return Path(os.environ.get("OPENENV_REF_VENV", default))


def ensure_ref_venv() -> Path:
    """Return the python of the reference virtualenv, creating it on first use."""
    root = ref_venv_dir()
    python = root / "bin" / "python"
    root.parent.mkdir(parents=True, exist_ok=True)
    with _locked(root.parent / f"{root.name}.lock"):
        if _ready(root):
            return python
        pip = [str(python), "-m", "pip", "install", "-q", "--disable-pip-version-check"]
        if _built(root):  # the reference is there; what the list added since is not
            _run([*pip, *REQUIREMENTS])
        else:
            if root.exists():
                shutil.rmtree(root)  # a half-built venv from an interrupted run
            _run([sys.executable, "-m", "venv", str(root)])
            _run([*pip, *REQUIREMENTS])
        (root / MARKER).write_text(_recorded())
    return python


def _recorded() -> str:
    return "\n".join([REF_VERSION, *REQUIREMENTS])


def _built(root: Path) -> bool:
    marker = root / MARKER
    return marker.is_file() and marker.read_text().split("\n", 1)[0].strip() == REF_VERSION


def _ready(root: Path) -> bool:
    marker = root / MARKER
    return marker.is_file() and marker.read_text().strip() == _recorded()


def _run(cmd: list[str]) -> None:
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=900)
    if done.returncode != 0:
        raise RuntimeError(
            f"{' '.join(cmd[:4])}... failed (exit {done.returncode}); is PyPI reachable?\n"
            + done.stderr[-2000:]
        )


@contextlib.contextmanager
def _locked(path: Path) -> Iterator[None]:
    with open(path, "w") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)
