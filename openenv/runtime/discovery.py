"""Which environments exist, where they are, and whether their extras are installed.

An environment package is a directory with an ``openenv.yaml`` next to its ``__init__.py``
(``grid_world_env/``, ``echo_env/``…). There are two ways to find them, answered by one
:class:`EnvPackage` type:

- :func:`discover` lists the packages directly under a directory (the catalog's ``envs/``,
  ``openenv list``, Space bundles); :func:`load_package` reads one directory.
- :func:`list_env_packages` / :func:`find_env_package` look among importable top-level
  packages (``AutoEnv``, ``AutoAction``, ``EnvPool``). Names are matched loosely: ``"echo"``,
  ``"echo-env"``, ``"echo_env"`` and ``"Echo-Env"`` all name ``echo_env``; so does any package
  whose manifest says ``name: echo``.

Whether an environment can run here: :meth:`EnvPackage.missing_requirements` compares its
``extra:`` with what is installed (no import), and :func:`import_app` imports its server app,
turning a missing optional dependency into :class:`EnvUnavailable` with the install command.
"""

from __future__ import annotations

import difflib
import importlib
import importlib.metadata
import importlib.util
import pkgutil
import sys
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from openenv.core.errors import EnvNotFound, EnvUnavailable
from openenv.core.manifest import display_title

__all__ = [
    "EnvNotFound",
    "EnvPackage",
    "EnvUnavailable",
    "discover",
    "find_env_package",
    "import_app",
    "list_env_packages",
    "load_package",
]

MANIFEST = "openenv.yaml"
FRAMEWORK_PACKAGE = "openenv"


def normalize(name: str) -> str:
    """``"Echo-Env"`` / ``"echo_env"`` / ``"echo"`` → ``"echo"`` (the key names compare by)."""
    key = name.strip().lower().replace("-", "_")
    return key.removesuffix("_env") or key


def camel(key: str) -> str:
    """``"grid_world"`` → ``"GridWorld"``; ``"game_2048"`` → ``"Game2048"``."""
    return "".join(part[:1].upper() + part[1:] for part in key.split("_"))


@dataclass(frozen=True)
class EnvPackage:
    """One environment package (its directory) and its manifest."""

    path: Path
    manifest: dict[str, Any] = field(default_factory=dict)

    @property
    def package(self) -> str:
        """The importable package name (the directory's name, ``grid_world_env``)."""
        return self.path.name

    @property
    def name(self) -> str:
        """The environment's short name (``manifest.name`` or the package without ``_env``)."""
        return normalize(str(self.manifest.get("name") or self.package))

    @property
    def title(self) -> str:
        return display_title(self.manifest, self.name)

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

    @property
    def image(self) -> str:
        """The default Docker image tag for this env (``grid-world-env:latest``)."""
        return f"{self.name.replace('_', '-')}-env:latest"

    def install_command(self, missing_module: str | None = None) -> str | None:
        """The command that makes this environment importable, if one is known."""
        if self.extra:
            return f'pip install -e ".[{self.extra}]"'
        if missing_module:
            return f"pip install {missing_module.split('.')[0]}"
        return None

    def missing_requirements(self) -> list[str]:
        """Requirements of the env's ``extra`` that are not installed, without importing it.

        Empty when the env has no extra, when everything is installed, or when the framework
        runs vendored (a Space bundle) and has no distribution metadata to compare with.
        """
        if not self.extra:
            return []
        return _missing_for_extra(self.extra)

    def provider(
        self,
        *,
        use_docker: bool = False,
        image: str | None = None,
        env_vars: Mapping[str, str] | None = None,
    ) -> Any:
        """A new, unstarted provider of this env: a local process, or ``image`` in Docker.

        A local process needs the env's extra here: raises :class:`EnvUnavailable` (with the
        install command) rather than starting a server that cannot import.
        """
        if use_docker:
            from openenv.runtime.docker_provider import DockerProvider

            return DockerProvider(image or self.image, env_vars=env_vars)
        missing = self.missing_requirements()
        if missing:
            reason = f"missing {', '.join(missing)}"
            raise EnvUnavailable(self.name, reason, self.install_command())
        from openenv.runtime.process import LocalProcessProvider

        return LocalProcessProvider(self.app_ref, env_vars=env_vars)

    def client_class(self) -> type:
        """The package's typed client: ``<Name>Env``, else its only EnvClient subclass."""
        from openenv.client.env_client import EnvClient

        module = importlib.import_module(self.package)
        preferred = getattr(module, f"{camel(self.name)}Env", None)
        if isinstance(preferred, type) and issubclass(preferred, EnvClient):
            return preferred
        found = _subclasses_in(module, EnvClient)
        if len(found) != 1:
            raise EnvNotFound(
                f"{self.package} should export one EnvClient subclass named "
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


def _missing_for_extra(extra: str) -> list[str]:
    """Requirements of the framework's ``extra`` whose distribution is absent or too old."""
    from packaging.requirements import Requirement

    dists = importlib.metadata.packages_distributions().get(FRAMEWORK_PACKAGE) or []
    if not dists:
        return []
    missing = []
    for raw in importlib.metadata.requires(dists[0]) or []:
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


# -- environment folders -------------------------------------------------------------------


def load_package(path: Path) -> EnvPackage:
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
    return EnvPackage(path=path.resolve(), manifest=data)


def discover(envs_dir: Path) -> list[EnvPackage]:
    """Every environment package directly under ``envs_dir``, sorted by name."""
    if not envs_dir.is_dir():
        return []
    found = [load_package(p) for p in envs_dir.iterdir() if (p / MANIFEST).is_file()]
    return sorted(found, key=lambda e: e.name)


def make_importable(package: EnvPackage) -> None:
    """Put the directory holding the package on ``sys.path`` (a checkout without install)."""
    parent = str(package.path.parent)
    if parent not in sys.path:
        sys.path.insert(0, parent)


def import_app(package: EnvPackage) -> Any:
    """Import the environment's server app; a missing optional dependency raises EnvUnavailable.

    So does an ImportError from a dependency (installed, but broken or too old). A missing
    module of the package itself, or any other error, is a bug and propagates unchanged.
    """
    make_importable(package)
    module_name, _, attr = package.app_ref.partition(":")
    try:
        module = importlib.import_module(module_name)
    except ModuleNotFoundError as exc:
        missing = exc.name or ""
        if missing == package.package or missing.startswith(package.package + "."):
            raise
        raise EnvUnavailable(
            package.name, f"missing module {missing!r}", package.install_command(missing)
        ) from exc
    except ImportError as exc:  # an optional dependency that is installed but broken or too old
        raise EnvUnavailable(package.name, str(exc), package.install_command()) from exc
    try:
        return getattr(module, attr or "app")
    except AttributeError:
        raise AttributeError(
            f"{module_name} has no {attr or 'app'!r}: fix `app:` in {package.path / MANIFEST}"
        ) from None


# -- installed packages --------------------------------------------------------------------


def _package_at(module: str) -> EnvPackage | None:
    """The env package importable as top-level ``module``, if it ships a manifest."""
    try:
        spec = importlib.util.find_spec(module)
    except (ImportError, ValueError):
        return None
    if spec is None or not spec.submodule_search_locations:
        return None
    path = Path(next(iter(spec.submodule_search_locations)))
    if not (path / MANIFEST).is_file():
        return None
    return load_package(path)


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
