"""check_env runs over every environment package in envs/, found by the registry."""

from __future__ import annotations

from pathlib import Path

import pytest

from openenv.core import Environment
from openenv.core.errors import EnvUnavailable
from openenv.core.registry import discover
from openenv.testing import check_env

ENVS = Path(__file__).resolve().parent.parent / "envs"


def env_classes() -> list:
    found = []
    for package in discover(ENVS):
        try:
            found.append(pytest.param(package.environment_class(), id=package.package))
        except EnvUnavailable as exc:  # its extra is not installed here
            skip = pytest.mark.skip(reason=str(exc))
            found.append(pytest.param(None, id=package.package, marks=skip))
    return found


@pytest.mark.parametrize("env_cls", env_classes())
def test_every_env_honours_the_contract(env_cls: type[Environment]) -> None:
    check_env(env_cls())
