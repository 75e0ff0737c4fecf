"""``openenv.core.env_client``: ``EnvClient`` at ``openenv`` 0.10's import path (ours:
:class:`openenv.client.EnvClient`, with the same ``_step_payload`` / ``_parse_result`` /
``_parse_state`` hooks a 0.10 client subclass overrides)."""

from openenv.client.env_client import EnvClient
from openenv.core.types import StepResult

__all__ = ["EnvClient", "StepResult"]
