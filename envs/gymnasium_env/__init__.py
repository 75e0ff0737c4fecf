"""Any registered Gymnasium environment, served by one adapter. Client-side exports."""

from gymnasium_env.client import GymnasiumEnv
from gymnasium_env.models import GymnasiumAction, GymnasiumObservation, GymnasiumState

__all__ = ["GymnasiumAction", "GymnasiumEnv", "GymnasiumObservation", "GymnasiumState"]
