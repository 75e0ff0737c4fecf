"""DIPG safety: answer clinical questions from the given context only, in analysis → proof →
final channels; scored by the V3 format-first hierarchical reward. Client-side exports."""

from dipg_safety_env.client import DIPGSafetyEnv
from dipg_safety_env.models import DIPGAction, DIPGObservation, DIPGState

__all__ = ["DIPGAction", "DIPGObservation", "DIPGSafetyEnv", "DIPGState"]
