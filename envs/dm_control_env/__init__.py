"""dm_control suite tasks (MuJoCo continuous control). Client-side exports."""

from dm_control_env.client import DMControlEnv
from dm_control_env.models import DMControlAction, DMControlObservation, DMControlState

__all__ = ["DMControlAction", "DMControlEnv", "DMControlObservation", "DMControlState"]
