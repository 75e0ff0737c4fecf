"""Find installed environment packages by name, read their manifest, load their classes.

An environment package is a top-level importable package with an ``openenv.yaml`` next to its
``__init__.py`` (``grid_world_env/``, ``echo_env/``…). Names are matched loosely: ``"echo"``,
``"echo-env"``, ``"echo_env"`` and ``"Echo-Env"`` all name ``echo_env``; so does any package
whose manifest says ``name: echo``.
"""

from __future__ import annotations

import difflib
import importlib
import importlib.metadata
import importlib.util
import pkgutil
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from openenv.runtime.errors import EnvNotFound

MANIFEST = "openenv.yaml"


def normalize(name: str) -> str:
    """``"Echo-Env"`` / ``"echo_env"`` / ``"echo"`` → ``"echo"`` (the key names compare by)."""
    key = name.strip().lower().replace("-", "_")
    return key.removesuffix("_env") or key


def camel(key: str) -> str:
    """``"grid_world"`` → ``"GridWorld"``; ``"game_2048"`` → ``"Game2048"``."""
    return "".join(part[:1].upper() + part[1:] for part in key.split("_"))


@dataclass(frozen=True)
class EnvPackage:
    """An installed environment package and its manifest."""

    module: str
    path: Path
    manifest: dict[str, Any] = field(default_factory=dict)

    @property
    def name(self) -> str:
        """The environment's short name (``manifest.name`` or the module without ``_env``)."""
        return normalize(str(self.manifest.get("name") or self.module))

    @property
    def app(self) -> str:
        """The ASGI app to serve, ``module:attribute``."""
        return str(self.manifest.get("app") or f"{self.module}.server.app:app")

    @property
    def image(self) -> str:
        """The default Docker image tag for this env (``grid-world-env:latest``)."""
        return f"{self.name.replace('_', '-')}-env:latest"

    def provider(
        self,
        *,
        use_docker: bool = False,
        image: str | None = None,
        env_vars: Mapping[str, str] | None = None,
    ) -> Any:
        """A new, unstarted provider of this env: a local process, or ``image`` in Docker."""
        if use_docker:
            from openenv.runtime.docker_provider import DockerProvider

            return DockerProvider(image or self.image, env_vars=env_vars)
        from openenv.runtime.process import LocalProcessProvider

        return LocalProcessProvider(self.app, env_vars=env_vars)

    def client_class(self) -> type:
        """The package's typed client: ``<Name>Env``, else its only EnvClient subclass."""
        from openenv.client.env_client import EnvClient

        module = importlib.import_module(self.module)
        preferred = getattr(module, f"{camel(self.name)}Env", None)
        if isinstance(preferred, type) and issubclass(preferred, EnvClient):
            return preferred
        found = _subclasses_in(module, EnvClient)
        if len(found) != 1:
            raise EnvNotFound(
                f"{self.module} should export one EnvClient subclass named "
                f"{camel(self.name)}Env from its __init__.py; found {sorted(found) or 'none'}"
            )
        return next(iter(found.values()))

    def action_class(self) -> type:
        """The package's Action model (the client's first type argument)."""
        action = self.client_class()._models()[0]
        if action is None:
            raise EnvNotFound(
                f"{self.client_class().__name__} does not declare its Action type: subclass "
                f"EnvClient[<Name>Action, <Name>Observation, <Name>State]"
            )
        return action


def _subclasses_in(module: Any, base: type) -> dict[str, type]:
    return {
        name: obj
        for name, obj in vars(module).items()
        if isinstance(obj, type) and issubclass(obj, base) and obj.__module__ != base.__module__
    }


def _package_at(module: str) -> EnvPackage | None:
    try:
        spec = importlib.util.find_spec(module)
    except (ImportError, ValueError):
        return None
    if spec is None or not spec.submodule_search_locations:
        return None
    path = Path(next(iter(spec.submodule_search_locations)))
    manifest_file = path / MANIFEST
    if not manifest_file.is_file():
        return None
    manifest = yaml.safe_load(manifest_file.read_text(encoding="utf-8")) or {}
    return EnvPackage(module=module, path=path, manifest=manifest)


def list_env_packages() -> list[EnvPackage]:
    """Every importable top-level package that ships an ``openenv.yaml``, sorted by name."""
    # Editable installs are found by import hooks, not path entries: ask the metadata too.
    names = {info.name for info in pkgutil.iter_modules() if info.ispkg}
    names |= set(importlib.metadata.packages_distributions())
    found = [_package_at(name) for name in sorted(names) if name.endswith("_env")]
    return sorted((p for p in found if p is not None), key=lambda p: p.name)


def find_env_package(name: str) -> EnvPackage:
    """The installed env package called ``name`` in any usual spelling, or :class:`EnvNotFound`."""
    key = normalize(name)
    for module in (f"{key}_env", key):
        package = _package_at(module)
        if package is not None:
            return package
    installed = list_env_packages()
    for package in installed:
        if package.name == key:
            return package
    names = [p.name for p in installed]
    close = difflib.get_close_matches(key, names, n=3, cutoff=0.6)
    hint = f" Did you mean {', '.join(close)}?" if close else ""
    raise EnvNotFound(
        f"no installed environment package is called {name!r} (looked for {key}_env with an "
        f"{MANIFEST}).{hint} Installed: {', '.join(names) or 'none'}. Install one with "
        f"`pip install -e envs/<name>_env` or pass base_url= to connect to a running server."
    )
