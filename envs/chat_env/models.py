"""Wire types of the chat environment, shared by its client and its server.

As the reference ``chat_env``: ``ChatAction(tokens)`` (token ids; a tensor or array is turned
into a flat list), ``ChatObservation(messages, tokens)`` and ``ChatState(history_messages,
history_tokens)``; a message is ``{"role": ..., "content": ...}``.
"""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import Field, StrictInt, field_validator

from openenv.core import Action, Observation, State

MAX_ACTION_TOKENS = 4096

TokenId = Annotated[StrictInt, Field(ge=0)]


class ChatAction(Action):
    """One message as token ids (a model's generation, or a templated message)."""

    tokens: list[TokenId] = Field(
        min_length=1,
        max_length=MAX_ACTION_TOKENS,
        description="Token ids of one message (at most 4096), in the server's tokenizer",
    )

    @field_validator("tokens", mode="before")
    @classmethod
    def _flatten(cls, value: Any) -> Any:
        """Accept a torch tensor or numpy array (any shape) as the reference does."""
        if hasattr(value, "tolist") and callable(value.tolist) and hasattr(value, "shape"):
            flat = value.reshape(-1) if hasattr(value, "reshape") else value
            return flat.tolist()
        return list(value) if isinstance(value, tuple) else value


class ChatObservation(Observation):
    messages: list[dict[str, str]] = Field(
        default_factory=list, description="The conversation so far, system prompt first"
    )
    tokens: list[int] = Field(
        default_factory=list, description="Token ids of the whole conversation, flattened"
    )


class ChatState(State):
    history_messages: list[dict[str, str]] = Field(default_factory=list)
    history_tokens: list[list[int]] = Field(
        default_factory=list, description="Token ids of each message (one list per message)"
    )
