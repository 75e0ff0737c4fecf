"""Web tasks on a local site in a headless Chromium driven by Helium. Client-side exports."""

from helium_browser_env.client import HeliumBrowserEnv
from helium_browser_env.models import HeliumAction, HeliumObservation, HeliumState

__all__ = ["HeliumAction", "HeliumBrowserEnv", "HeliumObservation", "HeliumState"]
