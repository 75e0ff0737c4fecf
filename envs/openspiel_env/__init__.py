"""OpenSpiel games (tic-tac-toe, connect four, Kuhn poker, breakthrough, ...). Client exports.

The server needs the ``openspiel`` extra (``pip install openenv-playground[openspiel]``).
"""

from openspiel_env.client import OpenSpielEnv
from openspiel_env.models import OpenSpielAction, OpenSpielObservation, OpenSpielState

__all__ = ["OpenSpielAction", "OpenSpielEnv", "OpenSpielObservation", "OpenSpielState"]
