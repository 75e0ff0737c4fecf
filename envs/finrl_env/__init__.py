"""FinRL stock trading on seeded synthetic markets or a CSV. Client-side exports."""

from finrl_env.client import FinRLEnv
from finrl_env.models import FinRLAction, FinRLObservation, FinRLState

__all__ = ["FinRLAction", "FinRLEnv", "FinRLObservation", "FinRLState"]
