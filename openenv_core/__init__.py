"""``openenv_core``: the old name of ``openenv.core``, which env code still imports.

``import openenv_core.env_server.types`` gives the very module ``openenv.core.env_server.types``
(not a second copy of it), so classes are the same objects whichever name imported them. A
finder on ``sys.meta_path`` maps every ``openenv_core.X`` to ``openenv.core.X``; importing this
package warns once that the name is deprecated.
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.machinery
import sys
import warnings
from types import ModuleType
from typing import Any

_OLD, _NEW = "openenv_core", "openenv.core"

warnings.warn(
    "openenv_core is a deprecated name: import from openenv.core instead",
    DeprecationWarning,
    stacklevel=2,
)


class _Alias(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Finds ``openenv_core.X`` and loads it as the module ``openenv.core.X``."""

    def find_spec(
        self, fullname: str, path: Any = None, target: ModuleType | None = None
    ) -> importlib.machinery.ModuleSpec | None:
        if not fullname.startswith(_OLD + "."):
            return None
        return importlib.machinery.ModuleSpec(fullname, self)

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> ModuleType:
        return importlib.import_module(_NEW + spec.name[len(_OLD) :])

    def exec_module(self, module: ModuleType) -> None:
        """Nothing to run: the module was imported under its real name."""


if not any(isinstance(finder, _Alias) for finder in sys.meta_path):
    sys.meta_path.insert(0, _Alias())

_core = importlib.import_module(_NEW)
__all__ = list(getattr(_core, "__all__", []))


def __getattr__(name: str) -> Any:
    return getattr(_core, name)


def __dir__() -> list[str]:
    return sorted(set(dir(_core)))
