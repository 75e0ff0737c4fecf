"""What a PATH argument names: one environment package, or several of them (a catalog).

PATH is an environment package's directory (it has an ``openenv.yaml``, or, as some of
``openenv`` 0.10's envs, only a ``server/app.py``), a directory whose
``envs/`` (or itself) holds environment packages, or the name of an installed environment
(``grid_world``). Without PATH: the current directory when it is one of those, else the catalog
of every installed environment.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from openenv.cli.ui import CliError
from openenv.core.errors import EnvNotFound
from openenv.core.registry import MANIFEST, EnvPackage, discover, find, installed, read_folder


@dataclass(frozen=True)
class Target:
    """One environment (``entry``), or a catalog of ``entries`` (from ``envs_dir``, if any)."""

    entry: EnvPackage | None = None
    entries: list[EnvPackage] = field(default_factory=list)
    envs_dir: Path | None = None

    @property
    def is_env(self) -> bool:
        return self.entry is not None

    @property
    def where(self) -> str:
        """How to name the catalog to people: its directory, or the installed environments."""
        return str(self.envs_dir) if self.envs_dir else "the installed environments"


def resolve(path: str | None) -> Target:
    """PATH (default: the current directory) as an environment or a catalog (see the module)."""
    where = Path(path or ".").resolve()
    if where.is_dir() and ((where / MANIFEST).is_file() or (where / "server/app.py").is_file()):
        try:
            return Target(entry=read_folder(where))
        except ValueError as exc:
            raise CliError(str(exc)) from None
    for envs_dir in (where / "envs", where):
        found = discover(envs_dir) if envs_dir.is_dir() else []
        if found:
            return Target(entries=found, envs_dir=envs_dir)
    if path is None:
        return _installed_catalog()
    if not where.exists() and "/" not in path:
        try:
            return Target(entry=find(path))
        except EnvNotFound as exc:
            raise CliError(str(exc)) from None
    if not where.exists():
        raise CliError(f"{where} does not exist")
    raise CliError(
        f"{where} is neither an environment package (no {MANIFEST}) nor a directory of them; "
        "create one with `openenv init NAME`"
    )


def _installed_catalog() -> Target:
    entries = installed()
    if not entries:
        raise CliError("no environment here: pass the PATH of an environment package")
    return Target(entries=entries)
