"""Chat: a tokenised chat history (messages and token ids). Client-side exports."""

from chat_env.client import ChatEnv
from chat_env.models import ChatAction, ChatObservation, ChatState
from chat_env.tokenizer import load_tokenizer

__all__ = ["ChatAction", "ChatEnv", "ChatObservation", "ChatState", "load_tokenizer"]
