"""A virtualenv's Python in a container whose image lacks it: the host's interpreter mounted
read-only at :data:`PREFIX`, as the npm agents get the host's Node.

A virtualenv's ``bin/python`` is a symlink to the interpreter it was made with (Debian's
``/usr/bin/python3.11`` for mini-swe-agent's), and its ``pyvenv.cfg`` names, in ``home``, the
folder of that interpreter, from which Python finds its standard library. An image such as
the real ``python:3.11-slim`` has its own Python under ``/usr/local`` and nothing at that path.
So the container gets, read-only, besides the virtualenv at its own path:

- ``PREFIX/bin/python3.11``: the host's interpreter binary;
- ``PREFIX/lib/python3.11``: its standard library (``lib-dynload``, its C modules, inside);
- ``PREFIX/libs/<soname>``: each shared library the interpreter, its C modules and the
  virtualenv's need (``ldd`` on the host), except glibc's own (the image's are used) and a
  GUI's (``_tkinter``'s X11 and Tk);
- the virtualenv's ``pyvenv.cfg`` shadowed by a generated one whose ``home`` is ``PREFIX/bin``
  (:meth:`HostPython.container_files`; the host's file is not touched).

The interpreter is started by the image's own dynamic loader, the one the binary names
(``/lib64/ld-linux-x86-64.so.2`` on x86_64)::

    ld.so --library-path PREFIX/libs --argv0 VENV/bin/python PREFIX/bin/python3.11 ...

``--argv0`` makes Python take itself for the virtualenv's interpreter: it reads the generated
``pyvenv.cfg``, finds its standard library under ``PREFIX`` and the virtualenv's packages.
``--library-path`` finds the mounted libraries. Neither is an environment variable, so nothing
the agent runs (the image's ``python3``, the verifier) inherits a ``PYTHONHOME`` or an
``LD_LIBRARY_PATH``: the image's own Python is untouched. glibc comes from the image: a musl
image has no such loader, and the probe (:meth:`HostPython.glibc_check`) refuses a glibc older
than the newest version these binaries were linked against.
"""

from __future__ import annotations

import functools
import json
import platform
import re
import subprocess
from dataclasses import dataclass
from pathlib import Path

from openenv.core.harness.harnesses.base import HarnessUnavailable

PREFIX = "/opt/openenv-python"  # where a container sees the host's interpreter
LIBS = f"{PREFIX}/libs"
LDD_TIMEOUT_S = 120.0
# glibc's own libraries: a container uses the image's, never the host's.
GLIBC_LIBRARIES = frozenset(
    {
        *("libc.so.6", "libm.so.6", "libmvec.so.1", "libpthread.so.0", "libdl.so.2"),
        *("librt.so.1", "libresolv.so.2", "libutil.so.1", "libanl.so.1", "libnsl.so.1"),
        *("libBrokenLocale.so.1", "libthread_db.so.1", "libc_malloc_debug.so.0"),
        "linux-vdso.so.1",
    }
)
SKIPPED_MODULES = ("_tkinter.",)  # a GUI's (X11, Tk): no agent shows a window
# The interpreter's standard-library folders, asked of the interpreter itself.
_LAYOUT = (
    "import json, sys; print(json.dumps({'bases': [sys.base_prefix, sys.base_exec_prefix], "
    "'path': sys.path}))"
)
# The probe's first half: the image's glibc is at least what the mounted binaries need.
_GLIBC_CHECK = (
    "import os, sys; seen = os.confstr('CS_GNU_LIBC_VERSION') or 'no glibc version'; "
    "tuple(map(int, seen.split()[-1].split('.')[:2])) >= {need} or sys.exit("
    "seen + ' here; the mounted libraries need glibc >= {shown}'); "
)
_DEPENDENCY = re.compile(r"^\t(\S+) => (/\S+) \(0x")
_LOADER = re.compile(r"^\t(/\S+) \(0x")
_VERSION_NEED = re.compile(r"^\t\t\S+ \(GLIBC_(\d+)\.(\d+)(?:\.\d+)?\)")


def _is_glibc(name: str) -> bool:
    return name in GLIBC_LIBRARIES or name.startswith("ld-linux")


@dataclass(frozen=True)
class HostPython:
    """How a container runs ``venv``'s interpreter: what to mount, the argv prefix, the
    generated ``pyvenv.cfg`` and the glibc it needs."""

    venv: Path
    binary: Path  # the host's interpreter (the virtualenv's bin/python, resolved)
    loader: str  # the dynamic loader the binary names: the image's is used
    trees: dict[Path, str]  # standard-library folders, each with its path in the container
    libraries: dict[Path, str]  # shared libraries, each with its path in the container
    glibc: tuple[int, int]  # the newest glibc version the binaries need
    pyvenv_cfg: str  # the virtualenv's pyvenv.cfg as the container sees it

    @property
    def interpreter(self) -> str:
        """Where the container sees the binary."""
        return f"{PREFIX}/bin/{self.binary.name}"

    def argv(self) -> list[str]:
        """The argv prefix that starts the interpreter in the container (then ``-m`` ...)."""
        venv_python = str(self.venv / "bin" / "python")
        return [self.loader, "--library-path", LIBS, "--argv0", venv_python, self.interpreter]

    def mounts(self) -> dict[Path, str]:
        """Host paths mounted read-only, each with where the container sees it."""
        return {self.binary: self.interpreter, **self.trees, **self.libraries}

    def container_files(self) -> dict[str, str]:
        """The generated ``pyvenv.cfg``, mounted over the virtualenv's own."""
        return {str(self.venv / "pyvenv.cfg"): self.pyvenv_cfg}

    def glibc_check(self) -> str:
        """Python statements that exit with a message when the image's glibc is too old."""
        shown = ".".join(map(str, self.glibc))
        return _GLIBC_CHECK.format(need=self.glibc, shown=shown)

    def needs(self) -> str:
        """What an image must hold (one phrase)."""
        shown = ".".join(map(str, self.glibc))
        return (
            f"a glibc >= {shown} Linux image ({platform.machine()}): it runs on the host's "
            f"Python ({self.binary}), mounted at {PREFIX} with the shared libraries it needs "
            "that are not glibc's"
        )


def host_python(venv: Path) -> HostPython:
    """``venv``'s interpreter as a container runs it; computed once per install (``ldd`` over
    its C modules takes a second or so)."""
    python = venv / "bin" / "python"
    if not python.exists():
        raise HarnessUnavailable(f"no virtualenv interpreter at {python}")
    changed = [venv / "pyvenv.cfg", *sorted(venv.glob("lib/python3*/site-packages"))]
    return _host_python(venv, tuple(p.stat().st_mtime_ns for p in changed))


@functools.lru_cache(maxsize=8)
def _host_python(venv: Path, stamps: tuple[int, ...]) -> HostPython:
    binary = (venv / "bin" / "python").resolve()
    bases, trees = _standard_library(venv)
    modules = [p for tree in trees for p in sorted(tree.glob("lib-dynload/*.so"))]
    modules = [p for p in modules if not p.name.startswith(SKIPPED_MODULES)]
    report = _ldd([binary, *modules, *sorted({p.resolve() for p in venv.rglob("*.so")})])
    loader, libraries, glibc = _read_ldd(report, venv)
    if loader is None:
        raise HarnessUnavailable(f"{binary} is not a dynamically linked glibc program (ldd)")
    mounted: dict[Path, str] = {}
    for tree in trees:
        base = next(b for b in bases if tree.is_relative_to(b))
        mounted[tree] = f"{PREFIX}/{tree.relative_to(base)}"
    return HostPython(
        venv=venv,
        binary=binary,
        loader=loader,
        trees=mounted,
        libraries={path: f"{LIBS}/{name}" for name, path in libraries.items()},
        glibc=glibc,
        pyvenv_cfg=_pyvenv_cfg(venv, binary),
    )


def _standard_library(venv: Path) -> tuple[list[Path], list[Path]]:
    """The interpreter's base prefixes and its standard-library folders under them (the
    outermost only: ``lib-dynload`` is inside ``lib/python3.11`` on Debian)."""
    argv = [str(venv / "bin" / "python"), "-I", "-c", _LAYOUT]
    try:
        ran = subprocess.run(argv, capture_output=True, text=True, timeout=60, check=True)
        layout = json.loads(ran.stdout)
    except (OSError, ValueError, subprocess.SubprocessError) as exc:
        raise HarnessUnavailable(f"{argv[0]} does not say where its library is: {exc}") from exc
    bases = [Path(b) for b in layout["bases"]]
    found = [Path(p) for p in layout["path"] if p and Path(p).is_dir()]
    found = [p for p in found if any(p.is_relative_to(b) for b in bases)]
    found = [p for p in found if not p.is_relative_to(venv)]
    trees = [p for p in found if not any(p != q and p.is_relative_to(q) for q in found)]
    if not trees:
        raise HarnessUnavailable(f"{argv[0]}: no standard library found under {bases}")
    return bases, sorted(set(trees))


def _ldd(files: list[Path]) -> str:
    """``ldd -v`` of ``files`` (a file that is no dynamic object is said so, and skipped)."""
    argv = ["ldd", "-v", *map(str, files)]
    try:
        ran = subprocess.run(argv, capture_output=True, text=True, timeout=LDD_TIMEOUT_S)
    except FileNotFoundError:
        raise HarnessUnavailable("finding the interpreter's shared libraries needs ldd") from None
    except subprocess.TimeoutExpired:
        raise HarnessUnavailable(f"ldd took longer than {LDD_TIMEOUT_S:g} s") from None
    return ran.stdout


def _read_ldd(report: str, venv: Path) -> tuple[str | None, dict[str, Path], tuple[int, int]]:
    """The loader, the shared libraries to mount (by soname: not glibc's, not in the
    virtualenv, which is mounted whole) and the newest glibc version needed."""
    loader: str | None = None
    libraries: dict[str, Path] = {}
    glibc = (2, 17)
    needer_is_glibc = False
    for line in report.splitlines():
        if (dependency := _DEPENDENCY.match(line)) is not None:
            name, path = dependency.group(1), Path(dependency.group(2))
            if not _is_glibc(name) and not path.is_relative_to(venv):
                libraries.setdefault(name, path.resolve())
        elif (found := _LOADER.match(line)) is not None:
            loader = loader or found.group(1)
        elif line.startswith("\t/") and line.endswith(":"):  # whose version needs follow
            needer_is_glibc = _is_glibc(Path(line[1:-1]).name)
        elif (need := _VERSION_NEED.match(line)) is not None and not needer_is_glibc:
            glibc = max(glibc, (int(need.group(1)), int(need.group(2))))
    return loader, libraries, glibc


def _pyvenv_cfg(venv: Path, binary: Path) -> str:
    """The virtualenv's ``pyvenv.cfg`` with ``home`` (and ``executable``) pointing at the
    container's copy of the interpreter."""
    lines = (venv / "pyvenv.cfg").read_text(encoding="utf-8").splitlines()
    replaced = {"home": f"{PREFIX}/bin", "executable": f"{PREFIX}/bin/{binary.name}"}
    out = []
    for line in lines:
        key = line.partition("=")[0].strip()
        if key == "command":
            continue  # how it was made on the host: nothing a container can repeat
        out.append(f"{key} = {replaced[key]}" if key in replaced else line)
    if not any(line.startswith("home =") for line in out):
        out.insert(0, f"home = {PREFIX}/bin")
    return "\n".join(out) + "\n"
