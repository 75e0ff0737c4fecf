"""Wordle: find the five-letter word in six guesses. Client-side exports."""

from wordle_env.client import WordleEnv
from wordle_env.models import WordleAction, WordleObservation, WordleState

__all__ = ["WordleAction", "WordleEnv", "WordleObservation", "WordleState"]
