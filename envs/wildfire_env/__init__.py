"""Wildfire: contain a spreading fire with water drops and firebreaks. Client-side exports."""

from wildfire_env.client import WildfireEnv
from wildfire_env.models import FireAction, WildfireAction, WildfireObservation, WildfireState

__all__ = ["FireAction", "WildfireAction", "WildfireEnv", "WildfireObservation", "WildfireState"]
