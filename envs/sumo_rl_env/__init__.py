"""Traffic-signal control with SUMO (sumo-rl's networks and reward). Client-side exports."""

from sumo_rl_env.client import SumoRLEnv
from sumo_rl_env.models import SumoAction, SumoObservation, SumoState, TrafficLight

__all__ = ["SumoAction", "SumoObservation", "SumoRLEnv", "SumoState", "TrafficLight"]
