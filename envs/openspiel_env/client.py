"""Typed client of the OpenSpiel server (no OpenSpiel needed on the client side)."""

from __future__ import annotations

from openenv.client import EnvClient
from openspiel_env.models import OpenSpielAction, OpenSpielObservation, OpenSpielState


class OpenSpielEnv(EnvClient[OpenSpielAction, OpenSpielObservation, OpenSpielState]):
    """``async with OpenSpielEnv(base_url=...) as env`` or ``OpenSpielEnv(...).sync()``."""
