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
to the folder (``server.app:app``) names ``<package>.server.app:app``; a folder without
``__init__.py`` or whose name is no Python name (``my-env/``) is imported as a package all the
same, so ``server/app.py``'s ``from ..models import X`` works, and the folder is on
``sys.path`` too for the ``from models import X`` fallback. A folder named like a package that
is importable from elsewhere (a published ``echo_env`` beside ours) is never silently replaced by
the other: the folder is what this process imports under that name, and :class:`Shadowed` is
warned (:func:`shadowed_by` says where the other one is). Two installed distributions
shipping one env package are reported the same way by :func:`find` (:func:`duplicates`).

The documented catalog also has environments that cannot run on a CPU machine without
downloads no package registry carries (Unity builds, OpenApps' apps, ThinkingBox's scenarios):
:data:`HOSTED_ONLY` lists them, each with the reason, and ``openenv list`` and the catalog page
show them as "hosted only", to be played with ``openenv playground URL`` against a server that
hosts them.

Whether a package can run here: :meth:`EnvPackage.missing_requirements` compares its
``extra:`` with what is installed (no import), :meth:`EnvPackage.import_app` turns a missing
optional dependency into :class:`EnvUnavailable` with the command that installs it.
"""

from __future__ import annotations

import difflib
import functools
import importlib
import importlib.metadata
import importlib.util
import inspect
import keyword
import os
import pkgutil
import re
import sys
import warnings
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from openenv.core.errors import EnvNotFound, EnvUnavailable
from openenv.core.manifest import MANIFEST, Manifest, normalize

README = "README.md"
DISTRIBUTION = "openenv-playground"  # the distribution whose extras envs name in `extra:`
_CLIENT_MODULE = "openenv.client.env_client"  # where EnvClient lives (never imported from here)


class Shadowed(UserWarning):
    """Two environment packages answer to one import name; the message says which is used."""


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
        if self.path is not None and top != self.package and _holds_module(self.path, top):
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
        """The command that makes this environment importable, if one is known: its ``extra``,
        else the requirement of its own ``pyproject.toml`` or ``server/requirements.txt`` that
        provides ``missing_module``, else that module's name. Never the package's own modules,
        nor ``openenv`` / ``openenv-core`` (installing those would replace this framework)."""
        if self.extra:
            return install_command(self.extra)
        if not missing_module:
            return None
        top = missing_module.split(".")[0]
        if self.path is not None and _holds_module(self.path, top):
            return None  # a module of the package itself: nothing to install
        if top in ("openenv", "openenv_core"):  # ours, from an install older than the name
            return "pip install -e ." if _from_checkout() else f"pip install -U {DISTRIBUTION}"
        declared = _declared_requirement(self.path, top) if self.path is not None else None
        return f'pip install "{declared}"' if declared else f"pip install {top}"

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


# -- hosted only ----------------------------------------------------------------------------


@dataclass(frozen=True)
class HostedOnly:
    """A documented environment with no package here: it runs only on a server that hosts it
    (``openenv playground URL`` puts our playground in front of that server)."""

    name: str
    title: str
    emoji: str
    description: str
    reason: str  # why it cannot run here


HOSTED_ONLY: tuple[HostedOnly, ...] = (
    HostedOnly(
        "openapp",
        "OpenApp",
        "🗂️",
        "Web application simulation wrapping the OpenApps framework and BrowserGym for training "
        "UI agents on calendar, todo, messenger and maps apps.",
        "needs the OpenApps web applications, a checkout served beside the browser, which no "
        "package registry carries",
    ),
    HostedOnly(
        "thinkingbox",
        "ThinkingBox",
        "🧰",
        "Evaluation-only adapter for ThinkingBox-Bench and user-supplied ThinkingBox scenarios, "
        "with isolated MCP tools, simulated users and native state and side-effect grading.",
        "needs the ThinkingBox-Bench scenarios and their MCP tool servers, downloaded outside any "
        "package registry, and an LLM for its simulated users",
    ),
    HostedOnly(
        "unity",
        "Unity ML-Agents",
        "🎮",
        "OpenEnv wrapper for Unity ML-Agents environments (3DBall, GridWorld, ...) over "
        "HTTP/WebSocket.",
        "needs Unity environment builds (player binaries downloaded per environment, not from a "
        "package registry) and mlagents-envs, whose releases support Python 3.10 only",
    ),
)


def hosted_only() -> list[HostedOnly]:
    """The documented environments that run only where they are hosted, sorted by name."""
    return sorted(HOSTED_ONLY, key=lambda h: h.name)


# -- extras ----------------------------------------------------------------------------------


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


def make_importable(package: EnvPackage) -> None:
    """Make the package's folder importable as :attr:`EnvPackage.package` (a folder that is not
    installed, laid out ours or ``openenv`` 0.10's way; see the module docstring)."""
    if package.path is None:
        return
    name, folder = package.package, package.path
    other = shadowed_by(name, folder)
    if other is not None:
        _refuse_if_loaded(name, folder, other)
        warnings.warn(
            f"{folder} is named like the package {name} installed at {other}: this process "
            f"imports {name} from the folder, not from there. Rename the folder (or uninstall "
            "the other) to end this warning.",
            Shadowed,
            stacklevel=2,
        )
    elif name in sys.modules or importlib.util.find_spec(name) is not None:
        return  # installed: the folder is the installed package
    if name in sys.modules:
        return
    # The folder alone, as that package: its parent on sys.path would make its siblings
    # importable too (and one named like an installed package would shadow it).
    _load_folder(name, folder)
    if str(folder) not in sys.path:  # 0.10's fallback: `from models import X` in server/app.py
        sys.path.append(str(folder))


def _refuse_if_loaded(name: str, folder: Path, other: Path) -> None:
    loaded = sys.modules.get(name)
    if loaded is not None and folder.resolve() not in _locations(loaded):
        raise ImportError(
            f"cannot import {folder} as {name}: this process already imported {name} from "
            f"{other}. Rename the folder, or run it in a process of its own."
        )


def _locations(module: Any) -> list[Path]:
    return [Path(p).resolve() for p in getattr(module, "__path__", None) or ()]


def _load_folder(name: str, folder: Path) -> None:
    """Import ``folder`` as the package ``name`` (its ``__init__.py`` run, if it has one)."""
    init = folder / "__init__.py"
    locations = [str(folder)]
    if init.is_file():
        spec = importlib.util.spec_from_file_location(
            name, init, submodule_search_locations=locations
        )
    else:
        spec = importlib.machinery.ModuleSpec(name, None, is_package=True)
        spec.submodule_search_locations = locations
    if spec is None:
        raise ImportError(f"cannot import {folder} as {name}")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    try:
        if spec.loader is not None:
            spec.loader.exec_module(module)
    except BaseException:
        sys.modules.pop(name, None)
        raise


def shadowed_by(name: str, folder: Path) -> Path | None:
    """Where another package importable as ``name`` lives, when it is not ``folder``."""
    loaded = sys.modules.get(name)
    if loaded is not None:
        places = _locations(loaded) or [Path(getattr(loaded, "__file__", None) or name)]
    else:
        try:
            spec = importlib.util.find_spec(name)
        except (ImportError, ValueError):
            return None
        if spec is None:
            return None
        found = spec.submodule_search_locations or ([spec.origin] if spec.origin else [])
        places = [Path(p).resolve() for p in found]
    if not places or folder.resolve() in places:
        return None
    return places[0]


def _distributions() -> dict[str, list[str]]:
    """``importlib.metadata.packages_distributions()`` (about a second with a few hundred
    distributions), read again only when the import path or one of its folders changed (an
    install adds its metadata folder there)."""
    stamps = []
    for entry in sys.path:
        try:
            stamps.append((entry, os.stat(entry or ".").st_mtime_ns))
        except OSError:
            stamps.append((entry, 0))
    return _distributions_at(tuple(stamps))


@functools.lru_cache(maxsize=2)
def _distributions_at(stamps: tuple[tuple[str, int], ...]) -> dict[str, list[str]]:
    return {k: list(v) for k, v in importlib.metadata.packages_distributions().items()}


def duplicates() -> dict[str, list[str]]:
    """Env packages (``*_env``) that more than one installed distribution ships: one's files
    replace the other's in ``site-packages``, whichever was installed last."""
    shipped = _distributions()
    return {
        name: sorted(set(dists))
        for name, dists in shipped.items()
        if name.endswith("_env") and len(set(dists)) > 1
    }


def _holds_module(folder: Path, top: str) -> bool:
    """Whether ``top`` is a module or package inside ``folder`` (``server``, ``models``)."""
    return (folder / top).is_dir() or (folder / f"{top}.py").is_file()


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
    names |= set(_distributions())
    found = [_package_at(name) for name in sorted(names) if name.endswith("_env")]
    return sorted((p for p in found if p is not None), key=lambda p: p.name)


def find(name: str) -> EnvPackage:
    """The installed env package called ``name`` in any usual spelling, or :class:`EnvNotFound`."""
    key = normalize(name)
    for module in (f"{key}_env", key):
        package = _package_at(module)
        if package is not None:
            _warn_duplicates(module, package)
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


def _warn_duplicates(module: str, package: EnvPackage) -> None:
    dists = duplicates().get(module)
    if dists:
        warnings.warn(
            f"{module} is shipped by {' and '.join(dists)}: the files of one replaced the "
            f"other's; `import {module}` gives {package.path}. Uninstall one of them.",
            Shadowed,
            stacklevel=3,
        )
