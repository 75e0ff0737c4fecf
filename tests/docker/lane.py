"""How a test that needs the local Docker engine says it did not run: skipped with the reason
and the command that sets an engine up ("DOCKER LANE NOT RUN: ..." in pytest's ``-ra``
summary), or failed when ``OPENENV_DOCKER_LANE=required`` (as CI runs it)."""

from __future__ import annotations

import os
from typing import Any, NoReturn

import pytest

LANE_ENV = "OPENENV_DOCKER_LANE"
SETUP = "bash tests/docker/setup_engine.sh"


def lane_not_run(reason: str) -> NoReturn:
    message = f"DOCKER LANE NOT RUN: {reason}"
    if "setup_engine.sh" not in reason:
        message += f" Set it up with `{SETUP}`."
    if os.environ.get(LANE_ENV) == "required":
        pytest.fail(f"{message} ({LANE_ENV}=required)", pytrace=False)
    pytest.skip(message)


def engine_with(image: str) -> Any:
    """The local Docker engine's client, with ``image`` on it; else the lane is not run."""
    from openenv.core.errors import ProviderError
    from openenv.runtime.docker_provider import docker_client

    try:
        client = docker_client()
    except ProviderError as exc:
        lane_not_run(str(exc))
    if not client.images.list(name=image):
        lane_not_run(f"the base image {image} is not on the engine (no registry here).")
    return client
