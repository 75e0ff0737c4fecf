"""Environment folders as Python packages, and the packages that shadow them.

:func:`make_importable` makes an environment folder importable under its package name. Folders
laid out as ``openenv`` 0.10 lays them out run as they are: a folder without ``__init__.py`` or
whose name is no Python name (``my-env/``) is imported as a package all the same, so
``server/app.py``'s ``from ..models import X`` works, and the folder is on ``sys.path`` too for
the ``from models import X`` fallback. A folder named like a package that is importable from
elsewhere (a published ``echo_env`` beside ours) is never silently replaced by the other: the
folder is what this process imports under that name, and :class:`Shadowed` is warned
(:func:`shadowed_by` says where the other one is). Two installed distributions shipping one env
package are reported the same way (:func:`duplicates`, :func:`warn_duplicates`).
"""

from __future__ import annotations

import functools
import importlib
import importlib.metadata
import importlib.util
import os
import sys
import warnings
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from openenv.core.registry import EnvPackage


class Shadowed(UserWarning):
    """Two environment packages answer to one import name; the message says which is used."""


def holds_module(folder: Path, top: str) -> bool:
    """Whether ``top`` is a module or package inside ``folder`` (``server``, ``models``)."""
    return (folder / top).is_dir() or (folder / f"{top}.py").is_file()


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


def distributions() -> dict[str, list[str]]:
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
    shipped = distributions()
    return {
        name: sorted(set(dists))
        for name, dists in shipped.items()
        if name.endswith("_env") and len(set(dists)) > 1
    }


def warn_duplicates(module: str, package: EnvPackage) -> None:
    """Warn :class:`Shadowed` when more than one installed distribution ships ``module``."""
    dists = duplicates().get(module)
    if dists:
        warnings.warn(
            f"{module} is shipped by {' and '.join(dists)}: the files of one replaced the "
            f"other's; `import {module}` gives {package.path}. Uninstall one of them.",
            Shadowed,
            stacklevel=3,
        )
