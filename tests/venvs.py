"""Clean virtualenvs for tests that must not see the source tree: cached by what they hold.

``clean_python(requirements_txt)`` is a virtualenv with exactly those requirements (made once,
then reused across runs, under ~/.cache/openenv-playground/, keyed by the file's hash);
``fresh_venv(where, deps, wheel)`` is a new virtualenv that sees ``deps``' packages (no source
tree) and holds ``wheel`` installed the normal way.
"""

from __future__ import annotations

import fcntl
import hashlib
import os
import shutil
import subprocess
import sys
import venv
from pathlib import Path

CACHE = Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "openenv-playground"
PIP = ["-m", "pip", "install", "-q", "--disable-pip-version-check"]


def clean_python(requirements_txt: Path) -> Path:
    """A clean virtualenv with exactly the requirements of ``requirements_txt``; reused."""
    key = hashlib.sha256(requirements_txt.read_bytes()).hexdigest()[:16]
    home = CACHE / f"space-venv-py{sys.version_info[0]}{sys.version_info[1]}-{key}"
    python = home / "bin" / "python"
    CACHE.mkdir(parents=True, exist_ok=True)
    with open(CACHE / f"{home.name}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if (home / ".ready").is_file():
            return python
        shutil.rmtree(home, ignore_errors=True)
        venv.EnvBuilder(with_pip=True, clear=True).create(home)
        subprocess.run([str(python), *PIP, "-r", str(requirements_txt)], check=True)
        (home / ".ready").write_text(requirements_txt.read_text())
    return python


def site_packages(python: Path) -> Path:
    """The ``site-packages`` folder of the virtualenv of ``python``."""
    out = subprocess.run(
        [str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        capture_output=True, text=True, check=True,
    )  # fmt: skip
    return Path(out.stdout.strip())


def fresh_venv(where: Path, deps: Path, wheel: Path) -> Path:
    """A new virtualenv at ``where`` that imports the packages of the virtualenv of ``deps``
    (through a ``.pth`` file) and has ``wheel`` installed by pip, without its dependencies."""
    venv.EnvBuilder(with_pip=True, clear=True).create(where)
    python = where / "bin" / "python"
    (site_packages(python) / "_test_deps.pth").write_text(f"{site_packages(deps)}\n")
    subprocess.run([str(python), *PIP, "--no-deps", str(wheel)], check=True)
    return python


SOURCE_IGNORE = shutil.ignore_patterns(
    ".git", "build", "dist", "*.egg-info", "__pycache__", ".*_cache", ".venv*", "*.pyc"
)


def build_wheel(source: Path, out: Path) -> Path:
    """The wheel of the project at ``source``, built by ``pip wheel`` from a copy of it (so the
    build leaves nothing in the checkout)."""
    copy = out / "source"
    shutil.copytree(source, copy, ignore=SOURCE_IGNORE, symlinks=True)
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "--disable-pip-version-check",
         "-w", str(out), str(copy)],
        check=True,
    )  # fmt: skip
    (wheel,) = out.glob("*.whl")
    return wheel
