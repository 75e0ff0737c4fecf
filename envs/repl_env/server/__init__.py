"""Server side of the REPL environment."""

from repl_env.server.environment import REPLEnvironment

__all__ = ["REPLEnvironment"]
