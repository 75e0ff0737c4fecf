"""Find environment packages (a directory with ``openenv.yaml``) and import their server apps."""

from __future__ import annotations

import importlib
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

MANIFEST = "openenv.yaml"


class EnvUnavailable(Exception):
    """An environment whose server cannot be imported here; ``install`` says how to fix it."""

    def __init__(self, name: str, reason: str, install: str | None) -> None:
        self.name = name
        self.reason = reason
        self.install = install
        hint = f"; install it with: {install}" if install else ""
        super().__init__(f"environment {name!r} is unavailable: {reason}{hint}")


@dataclass(frozen=True)
class EnvEntry:
    """One environment package on disk, described by its manifest."""

    path: Path
    manifest: dict[str, Any] = field(default_factory=dict)

    @property
    def package(self) -> str:
        return self.path.name

    @property
    def name(self) -> str:
        return str(self.manifest.get("name") or self.package.removesuffix("_env"))

    @property
    def title(self) -> str:
        return self.name.replace("_", " ").replace("-", " ").title()

    @property
    def description(self) -> str:
        return str(self.manifest.get("description") or "")

    @property
    def tags(self) -> list[str]:
        return [str(t) for t in self.manifest.get("tags") or []]

    @property
    def emoji(self) -> str:
        return str(self.manifest.get("emoji") or "🎮")

    @property
    def extra(self) -> str | None:
        """The optional-dependency extra of the distribution this environment needs."""
        value = self.manifest.get("extra")
        return str(value) if value else None

    @property
    def app_ref(self) -> str:
        """``module:attribute`` of the server app (manifest ``app:``, else the convention)."""
        return str(self.manifest.get("app") or f"{self.package}.server.app:app")

    def install_command(self, missing_module: str | None = None) -> str | None:
        """The command that makes this environment importable, if one is known."""
        if self.extra:
            return f'pip install -e ".[{self.extra}]"'
        if missing_module:
            return f"pip install {missing_module.split('.')[0]}"
        return None


def load_entry(path: Path) -> EnvEntry:
    """Read one environment directory; raises ``ValueError`` saying what is wrong."""
    manifest_path = path / MANIFEST
    if not manifest_path.is_file():
        raise ValueError(f"{path} has no {MANIFEST}: is it an environment package?")
    try:
        data = yaml.safe_load(manifest_path.read_text(encoding="utf-8"))
    except yaml.YAMLError as exc:
        raise ValueError(f"{manifest_path} is not valid YAML: {exc}") from exc
    if data is None:
        data = {}
    if not isinstance(data, dict):
        raise ValueError(f"{manifest_path} must be a mapping of keys (name:, description:, ...)")
    return EnvEntry(path=path.resolve(), manifest=data)


def discover(envs_dir: Path) -> list[EnvEntry]:
    """Every environment package directly under ``envs_dir``, sorted by name."""
    if not envs_dir.is_dir():
        return []
    found = [load_entry(p) for p in envs_dir.iterdir() if (p / MANIFEST).is_file()]
    return sorted(found, key=lambda e: e.name)


def make_importable(entry: EnvEntry) -> None:
    """Put the directory holding the package on ``sys.path`` (a checkout without install)."""
    parent = str(entry.path.parent)
    if parent not in sys.path:
        sys.path.insert(0, parent)


def import_app(entry: EnvEntry) -> Any:
    """Import the environment's server app; a missing optional dependency raises EnvUnavailable.

    So does an ImportError from a dependency (installed, but broken or too old). A missing
    module of the package itself, or any other error, is a bug and propagates unchanged.
    """
    make_importable(entry)
    module_name, _, attr = entry.app_ref.partition(":")
    try:
        module = importlib.import_module(module_name)
    except ModuleNotFoundError as exc:
        missing = exc.name or ""
        if missing == entry.package or missing.startswith(entry.package + "."):
            raise
        raise EnvUnavailable(
            entry.name, f"missing module {missing!r}", entry.install_command(missing)
        ) from exc
    except ImportError as exc:  # an optional dependency that is installed but broken or too old
        raise EnvUnavailable(entry.name, str(exc), entry.install_command()) from exc
    try:
        return getattr(module, attr or "app")
    except AttributeError:
        raise AttributeError(
            f"{module_name} has no {attr or 'app'!r}: fix `app:` in {entry.path / MANIFEST}"
        ) from None
