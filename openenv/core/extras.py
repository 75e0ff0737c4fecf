"""What an environment needs installed, and the command that installs it.

An env package names the optional-dependency extra of this distribution it needs (its
manifest's ``extra:``); :func:`missing_for_extra` compares that extra's requirements with what
is installed, without importing anything, and :func:`install_command` says how to install it.
For a package without an extra, :func:`package_install_command` finds the requirement its own
``pyproject.toml`` or ``server/requirements.txt`` declares for a missing module.
"""

from __future__ import annotations

import functools
import importlib.metadata
from pathlib import Path

from openenv.core.folders import holds_module

DISTRIBUTION = "openenv-playground"  # the distribution whose extras envs name in `extra:`


@functools.cache
def _distribution() -> importlib.metadata.Distribution | None:
    try:
        return importlib.metadata.distribution(DISTRIBUTION)
    except importlib.metadata.PackageNotFoundError:
        return None


def _from_checkout() -> bool:
    """Whether this framework runs from a source checkout (``pip install -e .``, or no install)
    rather than from an installed wheel (its files inside a ``site-packages`` folder)."""
    here = Path(__file__).resolve()
    return not any(part in ("site-packages", "dist-packages") for part in here.parts)


def install_command(extra: str) -> str:
    """How to install the extra ``extra``: ``pip install -e ".[x]"`` in a source checkout, else
    ``pip install "openenv-playground[x]"``."""
    if _from_checkout():
        return f'pip install -e ".[{extra}]"'
    return f'pip install "{DISTRIBUTION}[{extra}]"'


def missing_for_extra(extra: str) -> list[str]:
    """Requirements of the distribution's ``extra`` that are absent or too old."""
    from packaging.requirements import Requirement

    dist = _distribution()
    if dist is None:  # vendored (a Space bundle): nothing to compare with
        return []
    missing = []
    for raw in dist.requires or []:
        req = Requirement(raw)
        if req.marker is None or not req.marker.evaluate({"extra": extra}):
            continue
        try:
            version = importlib.metadata.version(req.name)
        except importlib.metadata.PackageNotFoundError:
            version = None
        if version is None or not req.specifier.contains(version, prereleases=True):
            missing.append(f"{req.name}{req.specifier}")
    return list(dict.fromkeys(missing))


def package_install_command(
    folder: Path | None, extra: str | None, missing_module: str | None = None
) -> str | None:
    """The command that makes the env package in ``folder`` importable, if one is known: its
    ``extra``, else the requirement of its own ``pyproject.toml`` or ``server/requirements.txt``
    that provides ``missing_module``, else that module's name. Never the package's own modules,
    nor ``openenv`` / ``openenv-core`` (installing those would replace this framework)."""
    if extra:
        return install_command(extra)
    if not missing_module:
        return None
    top = missing_module.split(".")[0]
    if folder is not None and holds_module(folder, top):
        return None  # a module of the package itself: nothing to install
    if top in ("openenv", "openenv_core"):  # ours, from an install older than the name
        return "pip install -e ." if _from_checkout() else f"pip install -U {DISTRIBUTION}"
    declared = _declared_requirement(folder, top) if folder is not None else None
    return f'pip install "{declared}"' if declared else f"pip install {top}"


def _declared_requirement(folder: Path, module: str) -> str | None:
    """The requirement among the folder's declared dependencies that provides ``module``."""
    from packaging.requirements import InvalidRequirement, Requirement

    key = module.lower().replace("_", "-")
    for raw in _declared_dependencies(folder):
        try:
            req = Requirement(raw)
        except InvalidRequirement:
            continue
        name = req.name.lower().replace("_", "-")
        if name == key and name not in ("openenv", "openenv-core"):
            return raw.strip()
    return None


def _declared_dependencies(folder: Path) -> list[str]:
    deps: list[str] = []
    pyproject = folder / "pyproject.toml"
    if pyproject.is_file():
        import tomllib

        try:
            project = tomllib.loads(pyproject.read_text(encoding="utf-8")).get("project", {})
        except tomllib.TOMLDecodeError:
            project = {}
        deps += [d for d in project.get("dependencies", []) if isinstance(d, str)]
    requirements = folder / "server" / "requirements.txt"
    if requirements.is_file():
        lines = requirements.read_text(encoding="utf-8").splitlines()
        deps += [line.split("#")[0].strip() for line in lines if line.split("#")[0].strip()]
    return deps
