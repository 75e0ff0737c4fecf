"""BrowserGym's MiniWoB++ web tasks in a real Chromium. Client-side exports."""

from browsergym_env.client import BrowserGymEnv
from browsergym_env.models import BrowserGymAction, BrowserGymObservation, BrowserGymState

__all__ = ["BrowserGymAction", "BrowserGymEnv", "BrowserGymObservation", "BrowserGymState"]
