"""Find an environment package's manifest (openenv.yaml) and README from its classes."""

from __future__ import annotations

import inspect
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from openenv.core.manifest import display_title


@dataclass(frozen=True)
class Manifest:
    name: str
    display_title: str = ""
    description: str = ""
    version: str | None = None
    tags: list[str] = field(default_factory=list)
    emoji: str = "🎮"
    readme: str | None = None
    root: Path | None = None
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def title(self) -> str:
        return display_title({"title": self.display_title}, self.name)


def package_root(obj: Any) -> Path | None:
    """The directory holding ``openenv.yaml`` above the module that defines ``obj``."""
    try:
        start = Path(
            inspect.getfile(obj if inspect.isclass(obj) or inspect.isfunction(obj) else type(obj))
        )
    except (TypeError, OSError):
        return None
    for parent in start.parents:
        if (parent / "openenv.yaml").is_file():
            return parent
        if parent.name in ("envs", "site-packages") or parent == parent.parent:
            break
    return None


def load_manifest(root: Path | None, fallback_name: str) -> Manifest:
    if root is None:
        return Manifest(name=fallback_name)
    data = yaml.safe_load((root / "openenv.yaml").read_text(encoding="utf-8")) or {}
    readme_path = root / "README.md"
    readme = readme_path.read_text(encoding="utf-8") if readme_path.is_file() else None
    known = {"name", "title", "description", "version", "tags", "emoji"}
    return Manifest(
        name=str(data.get("name") or fallback_name),
        display_title=str(data.get("title") or ""),
        description=str(data.get("description") or ""),
        version=str(data["version"]) if data.get("version") is not None else None,
        tags=list(data.get("tags") or []),
        emoji=str(data.get("emoji") or "🎮"),
        readme=readme,
        root=root,
        extra={k: v for k, v in data.items() if k not in known},
    )
