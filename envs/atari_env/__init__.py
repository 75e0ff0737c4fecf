"""Atari 2600 games through the Arcade Learning Environment. Client-side exports."""

from atari_env.client import AtariEnv
from atari_env.models import AtariAction, AtariObservation, AtariState

__all__ = ["AtariAction", "AtariEnv", "AtariObservation", "AtariState"]
