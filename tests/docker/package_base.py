"""The base image of the env packages' images, built offline once per requirement set.

``python tests/docker/package_base.py`` (or the lane's fixture) renders the base context with
``openenv.hub.package_image.base_bundle``, fills its wheelhouse with this machine's pip (no
index is reachable from image builds here), replaces any wheel whose ``Requires-Python``
excludes the image's interpreter by one that fits, and builds ``openenv-env-base:latest``
labelled with the requirements' hash. It does nothing when that label is already current.

When only the framework changed, a thin layer replaces it on top of the full build (tagged
``DEPS`` too), never on top of the previous thin one: the image stays at the same depth however
many runs change the framework (layers stacked run after run would reach Docker's limit of 127),
and the replaced image is removed, so a machine that runs the tests every day keeps one.
"""

from __future__ import annotations

import hashlib
import subprocess
import sys
import tempfile
import time
import zipfile
from pathlib import Path

from packaging.specifiers import SpecifierSet

from openenv.core.registry import discover
from openenv.hub.package_image import BASE_IMAGE, base_bundle

ROOT = Path(__file__).resolve().parents[2]
LABEL = "org.openenv.base.requirements"
FRAMEWORK = "org.openenv.base.framework"  # the vendored framework's digest (framework_digest)
STAND_IN = "python:3.11-slim"
DEPS = "openenv-env-base:deps"  # the full build (requirements installed) thin layers start FROM


def _docker(*args: str, timeout: float = 60) -> str:
    done = subprocess.run(["docker", *args], capture_output=True, text=True, timeout=timeout)
    return done.stdout.strip() if done.returncode == 0 else ""


def image_python() -> str:
    """The Python version of the image the base starts FROM (``3.11.2``)."""
    out = _docker(
        "run",
        "--rm",
        STAND_IN,
        "python3",
        "-c",
        "import platform; print(platform.python_version())",
    )
    return out or "3.11"


def _requires_python(wheel: Path) -> SpecifierSet:
    with zipfile.ZipFile(wheel) as archive:
        meta = next(n for n in archive.namelist() if n.endswith(".dist-info/METADATA"))
        for line in archive.read(meta).decode("utf-8", "replace").splitlines():
            if line.startswith("Requires-Python:"):
                return SpecifierSet(line.split(":", 1)[1].strip())
    return SpecifierSet()


def _pip(*args: str) -> None:
    subprocess.run([sys.executable, "-m", "pip", *args], check=True, timeout=1800)


def wheelhouse(context: Path, python: str) -> None:
    """Fill ``context/wheels`` for the bundle's requirements, each wheel fit for ``python``."""
    wheels = context / "wheels"
    _pip("wheel", "-q", "--wheel-dir", str(wheels), "-r", str(context / "requirements.txt"))
    _pip(
        "wheel",
        "-q",
        "--no-deps",
        "--wheel-dir",
        str(wheels),
        "-r",
        str(context / "requirements-no-deps.txt"),
    )
    for wheel in list(wheels.glob("*.whl")):
        if python not in _requires_python(wheel):
            name = wheel.name.split("-")[0]
            wheel.unlink()
            _pip("download", "-q", "--no-deps", "--only-binary=:all:", "--python-version", python,
                 "--dest", str(wheels), name)  # fmt: skip


def framework_digest(context: Path) -> str:
    """A digest of the framework the base context vendors (``openenv/``, every file)."""
    digest = hashlib.sha256()
    for path in sorted((context / "openenv").rglob("*")):
        if path.is_file():
            digest.update(path.relative_to(context).as_posix().encode() + b"\0")
            digest.update(path.read_bytes())
    return digest.hexdigest()[:16]


def _label(name: str, image: str = BASE_IMAGE) -> str:
    return _docker("image", "inspect", "-f", f'{{{{index .Config.Labels "{name}"}}}}', image)


def ensure_base(*, out=print) -> float:
    """Build the base image unless it is current; return the seconds it took (0 when current).

    Current: its requirements' hash (the label the Dockerfile sets) and its framework's digest
    (``FRAMEWORK``) are this checkout's. When only the framework changed, a thin layer replaces
    the vendored framework (seconds, not a new wheelhouse and install)."""
    started = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="openenv-env-base-") as tmp:
        context = Path(tmp) / "base"
        bundle = base_bundle(discover(ROOT / "envs"), context)
        framework = framework_digest(context)
        requirements = (context / "Dockerfile").read_text()
        current, deps = _label(LABEL), _label(LABEL, DEPS)
        if current and f'"{current}"' in requirements and _label(FRAMEWORK) == framework:
            return 0.0
        tags = ["-t", BASE_IMAGE]
        if deps and f'"{deps}"' in requirements:
            out(f"{BASE_IMAGE}: the framework changed, replacing it")
            (context / "Dockerfile").write_text(
                f"FROM {DEPS}\nRUN rm -rf /opt/openenv/openenv\nCOPY openenv /opt/openenv/openenv\n"
            )
        else:
            out(f"building {BASE_IMAGE} ({len(bundle.requirements)} requirements)")
            wheelhouse(context, image_python())
            tags += ["-t", DEPS]
        replaced = _docker("image", "inspect", "-f", "{{.Id}}", BASE_IMAGE)
        subprocess.run(
            ["docker", "build", "-q", "--label", f"{FRAMEWORK}={framework}", *tags, str(context)],
            check=True,
            timeout=3600,
        )
        if replaced and replaced != _docker("image", "inspect", "-f", "{{.Id}}", BASE_IMAGE):
            _docker("image", "rm", replaced)  # refused (and kept) while a tag or child uses it
    return time.monotonic() - started


if __name__ == "__main__":
    print(f"{BASE_IMAGE}: {ensure_base():.0f} s")
