"""CARLA's documented scenarios (trolley micro-benchmarks, action-bias and deadzone variants,
maze navigation) over our own kinematic simulator, or a real CARLA server. Client-side exports."""

from carla_env.client import CarlaEnv
from carla_env.models import CarlaAction, CarlaObservation, CarlaState

__all__ = ["CarlaAction", "CarlaEnv", "CarlaObservation", "CarlaState"]
