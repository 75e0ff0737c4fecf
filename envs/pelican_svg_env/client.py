"""Typed client of the Pelican SVG server."""

from __future__ import annotations

from openenv.client import EnvClient
from pelican_svg_env.models import PelicanSvgAction, PelicanSvgObservation, PelicanSvgState


class PelicanSvgEnv(EnvClient[PelicanSvgAction, PelicanSvgObservation, PelicanSvgState]):
    """``async with PelicanSvgEnv(base_url=...) as env`` or ``PelicanSvgEnv(...).sync()``."""
