"""REPL: a persistent, sandboxed Python interpreter per session, with checked tasks.
Client-side exports."""

from repl_env.client import REPLEnv
from repl_env.models import CodeBlockResult, REPLAction, REPLObservation, REPLState

__all__ = ["CodeBlockResult", "REPLAction", "REPLEnv", "REPLObservation", "REPLState"]
