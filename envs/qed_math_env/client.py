"""Typed client of the QED math server (no math-verify needed on the client side)."""

from __future__ import annotations

from openenv.client import EnvClient
from qed_math_env.models import QedMathAction, QedMathObservation, QedMathState


class QedMathEnv(EnvClient[QedMathAction, QedMathObservation, QedMathState]):
    """``async with QedMathEnv(base_url=...) as env`` or ``QedMathEnv(...).sync()``."""
