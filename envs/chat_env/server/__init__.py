"""Server side of the chat environment."""

from chat_env.server.environment import ChatEnvironment

__all__ = ["ChatEnvironment"]
