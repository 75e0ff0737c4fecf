"""Python CodeAct: solve a coding task with Python cells as actions, in a sandbox."""

from python_codeact_env.client import PythonCodeactEnv
from python_codeact_env.models import (
    PythonCodeactAction,
    PythonCodeactObservation,
    PythonCodeactState,
)

__all__ = [
    "PythonCodeactAction",
    "PythonCodeactEnv",
    "PythonCodeactObservation",
    "PythonCodeactState",
]
