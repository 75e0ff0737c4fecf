"""Coding: run Python in a sandboxed interpreter per episode. Client-side exports."""

from coding_env.client import CodingEnv
from coding_env.models import CodeAction, CodeObservation, CodeState

__all__ = ["CodeAction", "CodeObservation", "CodeState", "CodingEnv"]
