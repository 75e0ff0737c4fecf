"""A counter to reach a target: an env package laid out the way ``openenv`` 0.10's are (package
mode: ``server/app.py`` imports ``..models``; the client is an ``EnvClient`` subclass with its own
``_step_payload`` / ``_parse_result`` / ``_parse_state``; ``reset`` takes no arguments)."""

from .client import CounterEnv
from .models import CounterAction, CounterObservation

__all__ = ["CounterAction", "CounterEnv", "CounterObservation"]
