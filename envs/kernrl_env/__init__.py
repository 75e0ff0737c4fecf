"""KernRL: write a Triton kernel for a PyTorch op; reward from correctness and speed-up."""

from kernrl_env.client import KernrlEnv
from kernrl_env.models import KernrlAction, KernrlObservation, KernrlState

__all__ = ["KernrlAction", "KernrlEnv", "KernrlObservation", "KernrlState"]
