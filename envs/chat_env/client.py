"""Typed client of the chat server, with the reference's ``message_to_action``."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from chat_env.models import ChatAction, ChatObservation, ChatState
from chat_env.tokenizer import encode_message
from openenv.client import EnvClient


class ChatEnv(EnvClient[ChatAction, ChatObservation, ChatState]):
    """``async with ChatEnv(base_url=...) as env`` or ``ChatEnv(...).sync()``."""

    def message_to_action(self, message: Mapping[str, Any], tokenizer: Any) -> ChatAction:
        """``{"role", "content"}`` as a ChatAction, tokenised by ``tokenizer``'s chat template
        (use the server's tokenizer: ``chat_env.load_tokenizer()`` for the shipped one)."""
        return ChatAction(tokens=encode_message(tokenizer, message))
