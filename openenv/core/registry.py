"""The one registry of environment packages: where they are, what their manifest says, which
classes they provide, and whether they can run here.

An environment package is a directory with an ``openenv.yaml`` (its
:class:`~openenv.core.manifest.Manifest`) next to its ``__init__.py`` (``grid_world_env/``,
``echo_env/``…). The registry finds them two ways, both answered by one :class:`EnvPackage`:

- :func:`discover` lists the packages directly under a directory (the catalog's ``envs/``,
  ``openenv list``, Space bundles); :func:`read_package` reads one directory.
- :func:`installed` / :func:`find` look among importable top-level packages (``AutoEnv``,
  ``EnvPool``, ``openenv serve NAME``). Names are matched loosely: ``"echo"``, ``"echo-env"``,
  ``"echo_env"`` and ``"Echo-Env"`` all name ``echo_env``; so does any package whose manifest
  says ``name: echo``. :func:`package_of` is the package that defines a given class.

One rule names a package's classes, without importing it: its typed client is the manifest's
``client:`` (default ``<Name>Env``, ``GridWorldEnv``) exported by the package, its environment
the manifest's ``environment:`` (default ``<Name>Environment``) in ``server/environment.py``,
its server app the manifest's ``app:`` (default ``<package>.server.app:app``); the Action class
is the client's first type argument.

Folders laid out as ``openenv`` 0.10 lays them out run as they are: a manifest ``app:`` relative
to the folder (``server.app:app``) names ``<package>.server.app:app``, and the folder is
imported as that package by :mod:`openenv.core.folders` (which also warns when another package
answers to the same name). :func:`find` reports two installed distributions shipping one env
package the same way.

Whether a package can run here: :meth:`EnvPackage.missing_requirements` compares its
``extra:`` with what is installed (no import, :mod:`openenv.core.extras`),
:meth:`EnvPackage.import_app` turns a missing optional dependency into :class:`EnvUnavailable`
with the command that installs it. The documented environments that run only where they are
hosted are listed in :mod:`openenv.core.hosted`.
"""

from __future__ import annotations

import difflib
import importlib
import importlib.util
import inspect
import keyword
import pkgutil
import re
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from openenv.core.errors import EnvNotFound, EnvUnavailable
from openenv.core.extras import missing_for_extra, package_install_command
from openenv.core.folders import distributions, holds_module, make_importable, warn_duplicates
from openenv.core.manifest import MANIFEST, Manifest, normalize

README = "README.md"
_CLIENT_MODULE = "openenv.client.env_client"  # where EnvClient lives (never imported from here)


def python_name(folder: str) -> str:
    """A folder's name as a Python package name: ``"my-env"`` → ``"my_env"``."""
    name = re.sub(r"\W", "_", folder) or "env"
    if name[0].isdigit() or keyword.iskeyword(name):
        name = f"_{name}"
    return name


def camel(key: str) -> str:
    """``"grid_world"`` → ``"GridWorld"``; ``"game_2048"`` → ``"Game2048"``."""
    return "".join(part[:1].upper() + part[1:] for part in key.split("_"))


@dataclass(frozen=True)
class EnvPackage:
    """One environment package: its directory (``None`` for an environment defined outside a
    package, such as a script) and its manifest."""

    path: Path | None
    manifest: Manifest
    _cache: dict[str, Any] = field(default_factory=dict, compare=False, repr=False)

    # -- names ---------------------------------------------------------------------------

    @property
    def package(self) -> str:
        """The importable package name (the directory's name, ``grid_world_env``; a folder
        whose name is no Python name, ``my-env``, is imported as ``my_env``)."""
        return python_name(self.path.name) if self.path is not None else f"{self.name}_env"

    @property
    def name(self) -> str:
        """The environment's short name (``manifest.name`` or the package without ``_env``)."""
        return normalize(self.manifest.name)

    @property
    def title(self) -> str:
        return self.manifest.display_title

    @property
    def description(self) -> str:
        return self.manifest.description

    @property
    def tags(self) -> list[str]:
        return list(self.manifest.tags)

    @property
    def emoji(self) -> str:
        return self.manifest.emoji

    @property
    def extra(self) -> str | None:
        """The optional-dependency extra of the distribution this environment needs."""
        return self.manifest.extra

    @property
    def app_ref(self) -> str:
        """``module:attribute`` of the server app (manifest ``app:``, else the convention); an
        ``app:`` naming a module of the folder itself (``server.app:app``, as ``openenv`` 0.10's
        manifests do) is that module of this package."""
        app = self.manifest.app
        if not app:
            return f"{self.package}.server.app:app"
        top = app.split(":", 1)[0].split(".", 1)[0]
        if self.path is not None and top != self.package and holds_module(self.path, top):
            return f"{self.package}.{app}"
        return app

    @property
    def client_name(self) -> str:
        """The typed client's class name, exported by the package (``GridWorldEnv``)."""
        return self.manifest.client or f"{camel(self.name)}Env"

    @property
    def environment_name(self) -> str:
        """The environment's class name in ``server/environment.py``."""
        return self.manifest.environment or f"{camel(self.name)}Environment"

    @property
    def client_import(self) -> str:
        """The line that imports the typed client: ``from grid_world_env import GridWorldEnv``."""
        return f"from {self.package} import {self.client_name}"

    @property
    def image(self) -> str:
        """The default Docker image tag for this env (``grid-world-env:latest``)."""
        return f"{self.name.replace('_', '-')}-env:latest"

    @property
    def readme(self) -> str | None:
        """The package's README (its documentation page), if it has one."""
        if "readme" not in self._cache:
            path = self.path / README if self.path is not None else None
            text = path.read_text(encoding="utf-8") if path and path.is_file() else None
            self._cache["readme"] = text
        return self._cache["readme"]

    # -- availability --------------------------------------------------------------------

    def install_command(self, missing_module: str | None = None) -> str | None:
        """The command that makes this environment importable, if one is known (see
        :func:`~openenv.core.extras.package_install_command`)."""
        return package_install_command(self.path, self.extra, missing_module)

    def missing_requirements(self) -> list[str]:
        """Requirements of the env's ``extra`` that are not installed, without importing it.

        Empty when the env has no extra, when everything is installed, or when the framework
        runs vendored (a Space bundle) and has no distribution metadata to compare with.
        """
        return missing_for_extra(self.extra) if self.extra else []

    def unavailable(self, reason: str) -> EnvUnavailable:
        return EnvUnavailable(self.name, reason, self.install_command())

    def check_available(self) -> None:
        """Raise :class:`EnvUnavailable` (with the install command) when the extra is missing."""
        missing = self.missing_requirements()
        if missing:
            raise self.unavailable(f"missing {', '.join(missing)}")

    # -- classes ---------------------------------------------------------------------------

    def import_app(self) -> Any:
        """Import the server app; a missing optional dependency raises EnvUnavailable.

        So does an ImportError from a dependency (installed, but broken or too old). A missing
        module of the package itself, or any other error, is a bug and propagates unchanged.
        """
        module_name, _, attr = self.app_ref.partition(":")
        module = self._import(module_name)
        try:
            return getattr(module, attr or "app")
        except AttributeError:
            raise AttributeError(
                f"{module_name} has no {attr or 'app'!r}: fix `app:` in {self._manifest_path}"
            ) from None

    def client_class(self) -> type:
        """The package's typed client (an ``EnvClient`` subclass named by :attr:`client_name`)."""
        module = self._import(self.package)
        found = getattr(module, self.client_name, None)
        client_base = getattr(sys.modules.get(_CLIENT_MODULE), "EnvClient", None)
        if not (inspect.isclass(found) and client_base and issubclass(found, client_base)):
            raise EnvNotFound(
                f"{self.package} should export its EnvClient subclass {self.client_name} from "
                f"its __init__.py (or name another class with `client:` in {MANIFEST})"
            )
        return found

    def action_class(self) -> type:
        """The package's Action model: the client's first type argument."""
        client = self.client_class()
        action = client._models()[0]  # type: ignore[attr-defined]
        if action is None:
            raise EnvNotFound(
                f"{client.__name__} does not declare its Action type: subclass "
                f"EnvClient[<Name>Action, <Name>Observation, <Name>State]"
            )
        return action

    def environment_class(self) -> type:
        """The package's Environment subclass, from ``server/environment.py``."""
        from openenv.core.environment import Environment

        module = self._import(f"{self.package}.server.environment")
        found = getattr(module, self.environment_name, None)
        if not (inspect.isclass(found) and issubclass(found, Environment)):
            raise EnvNotFound(
                f"{self.package}/server/environment.py should define {self.environment_name} "
                f"(an Environment subclass), or name another class with `environment:` in "
                f"{MANIFEST}"
            )
        return found

    def _import(self, module_name: str) -> Any:
        if self.path is not None:
            make_importable(self)
        try:
            return importlib.import_module(module_name)
        except ModuleNotFoundError as exc:
            missing = exc.name or ""
            if missing == self.package or missing.startswith(self.package + "."):
                raise
            raise EnvUnavailable(
                self.name, f"missing module {missing!r}", self.install_command(missing)
            ) from exc
        except ImportError as exc:  # an optional dependency installed but broken or too old
            raise EnvUnavailable(self.name, str(exc), self.install_command()) from exc

    @property
    def _manifest_path(self) -> Path | str:
        return self.path / MANIFEST if self.path is not None else MANIFEST


# -- environment folders -------------------------------------------------------------------


def read_package(path: Path) -> EnvPackage:
    """Read one environment directory; raises ``ValueError`` saying what is wrong."""
    manifest_path = path / MANIFEST
    if not manifest_path.is_file():
        raise ValueError(f"{path} has no {MANIFEST}: is it an environment package?")
    return EnvPackage(path.resolve(), Manifest.read(manifest_path, normalize(path.name)))


def read_folder(path: Path) -> EnvPackage | None:
    """An environment folder: one with an ``openenv.yaml``, or (as some of ``openenv`` 0.10's
    envs are) one without a manifest whose server is ``server/app.py``; ``None`` otherwise."""
    if (path / MANIFEST).is_file():
        return read_package(path)
    if (path / "server" / "app.py").is_file():
        manifest = Manifest(name=normalize(path.name), app="server.app:app")
        return EnvPackage(path.resolve(), manifest)
    return None


def discover(envs_dir: Path) -> list[EnvPackage]:
    """Every environment package directly under ``envs_dir``, sorted by name."""
    if not envs_dir.is_dir():
        return []
    found = [read_package(p) for p in envs_dir.iterdir() if (p / MANIFEST).is_file()]
    return sorted(found, key=lambda e: e.name)


def package_of(obj: Any) -> EnvPackage | None:
    """The environment package whose directory holds the module defining ``obj``, if any."""
    try:
        target = obj if inspect.isclass(obj) or inspect.isfunction(obj) else type(obj)
        start = Path(inspect.getfile(target))
    except (TypeError, OSError):
        return None
    for parent in start.parents:
        if (parent / MANIFEST).is_file():
            return read_package(parent)
        if parent.name in ("envs", "site-packages") or parent == parent.parent:
            break
    return None


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
    return read_package(path)


def installed() -> list[EnvPackage]:
    """Every importable top-level package that ships an ``openenv.yaml``, sorted by name."""
    # Editable installs are found by import hooks, not path entries: ask the metadata too.
    names = {info.name for info in pkgutil.iter_modules() if info.ispkg}
    names |= set(distributions())
    found = [_package_at(name) for name in sorted(names) if name.endswith("_env")]
    return sorted((p for p in found if p is not None), key=lambda p: p.name)


def find(name: str) -> EnvPackage:
    """The installed env package called ``name`` in any usual spelling, or :class:`EnvNotFound`."""
    key = normalize(name)
    for module in (f"{key}_env", key):
        package = _package_at(module)
        if package is not None:
            warn_duplicates(module, package)
            return package
    packages = installed()
    for package in packages:
        if package.name == key:
            return package
    names = [p.name for p in packages]
    close = difflib.get_close_matches(key, names, n=3, cutoff=0.6)
    hint = f" Did you mean {', '.join(close)}?" if close else ""
    raise EnvNotFound(
        f"no installed environment package is called {name!r} (looked for {key}_env with an "
        f"{MANIFEST}).{hint} Installed: {', '.join(names) or 'none'}. Pass the path of an "
        "environment package, or base_url= to connect to a running server."
    )
