"""check_env runs over every environment package in envs/."""

from __future__ import annotations

import importlib
import inspect
from pathlib import Path

import pytest

from openenv.core import Environment
from openenv.testing import check_env

ENVS = Path(__file__).resolve().parent.parent / "envs"


def env_classes() -> list[type[Environment]]:
    found = []
    for pkg in sorted(p.name for p in ENVS.iterdir() if (p / "openenv.yaml").is_file()):
        try:
            module = importlib.import_module(f"{pkg}.server.environment")
        except ModuleNotFoundError as exc:  # optional extra not installed
            found.append(pytest.param(None, id=pkg, marks=pytest.mark.skip(reason=str(exc))))
            continue
        for _, cls in inspect.getmembers(module, inspect.isclass):
            if issubclass(cls, Environment) and cls.__module__ == module.__name__:
                found.append(pytest.param(cls, id=pkg))
    return found


@pytest.mark.parametrize("env_cls", env_classes())
def test_every_env_honours_the_contract(env_cls: type[Environment]) -> None:
    check_env(env_cls())
