"""Pelican SVG: draw an animal riding a vehicle as SVG, blind; gated, measured, judged."""

from pelican_svg_env.client import PelicanSvgEnv
from pelican_svg_env.models import PelicanSvgAction, PelicanSvgObservation, PelicanSvgState

__all__ = ["PelicanSvgAction", "PelicanSvgEnv", "PelicanSvgObservation", "PelicanSvgState"]
