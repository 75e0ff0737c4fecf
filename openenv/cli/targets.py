"""What a PATH argument names: one environment package, or a directory of them (the catalog)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from openenv.cli.ui import CliError
from openenv.runtime.discovery import MANIFEST, EnvPackage, discover, load_package


@dataclass(frozen=True)
class Target:
    """An environment (``entry``) or a catalog of the environments in ``envs_dir``."""

    entry: EnvPackage | None = None
    envs_dir: Path | None = None

    @property
    def is_env(self) -> bool:
        return self.entry is not None


def resolve(path: str | None) -> Target:
    """PATH (default: the current directory) as an environment or a catalog.

    An ``openenv.yaml`` makes PATH an environment; a directory whose ``envs/`` (or itself) holds
    environment packages is a catalog. With no PATH outside such a directory, the catalog of
    the installed checkout is used.
    """
    where = Path(path or ".").resolve()
    if not where.exists():
        raise CliError(f"{where} does not exist")
    if (where / MANIFEST).is_file():
        try:
            return Target(entry=load_package(where))
        except ValueError as exc:
            raise CliError(str(exc)) from None
    for envs_dir in (where / "envs", where):
        if envs_dir.is_dir() and discover(envs_dir):
            return Target(envs_dir=envs_dir)
    if path is None:
        return Target(envs_dir=_installed_envs_dir())
    raise CliError(
        f"{where} is neither an environment package (no {MANIFEST}) nor a directory of them; "
        "create one with `openenv init NAME`"
    )


def _installed_envs_dir() -> Path:
    import openenv

    envs_dir = Path(openenv.__file__).resolve().parent.parent / "envs"
    if not envs_dir.is_dir():
        raise CliError("no environment here: pass the PATH of an environment package")
    return envs_dir
