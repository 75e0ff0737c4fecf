"""``openenv.core.env_server.interfaces``: ``Environment`` and ``Transform`` at ``openenv``
0.10's import path (both ours), with the chat and task protocols its env code annotates with
and the wire types it imports from here too (``from ...interfaces import Action, Observation``)."""

from __future__ import annotations

from typing import Any, Protocol, TypedDict

from openenv.core.env_server.types import EnvironmentMetadata
from openenv.core.environment import ActT, Environment, ObsT, StateT
from openenv.core.transforms import Transform
from openenv.core.types import Action, Observation, State

__all__ = [
    "ActT",
    "Action",
    "Environment",
    "EnvironmentMetadata",
    "Message",
    "ModelTokenizer",
    "ObsT",
    "Observation",
    "State",
    "StateT",
    "TaskProvider",
    "Transform",
]


class Message(TypedDict):
    """One chat message, in the shape chat templates take."""

    role: str
    content: str


class ModelTokenizer(Protocol):
    """A tokenizer with a chat template (what a chat environment is given)."""

    def apply_chat_template(
        self, conversation: list[Message], tokenize: bool = True, **kwargs: Any
    ) -> Any:
        """Render (and by default tokenize) a conversation."""
        ...

    def decode(self, token_ids: Any, skip_special_tokens: bool = False, **kwargs: Any) -> str:
        """Token ids back to text."""
        ...


class TaskProvider(Protocol):
    """A source of tasks an environment can be reset onto."""

    def num_tasks(self, split: str | None = None) -> int:
        """How many tasks the split holds."""
        ...

    def get_task(self, index: int, split: str | None = None) -> Any:
        """The task at ``index``."""
        ...
