"""A tool environment in the reference's MCP style (``MCPEnvironment`` around a FastMCP
server, ``create_app(Env, CallToolAction, CallToolObservation)`` as the reference's echo_env
does), written against ``openenv==0.10.0``: ``add``, and a per-session notebook (``remember``,
``recall``).

Why: the playground must find a remote's tools (``tools/list`` over ``/ws``) and call them.

- Tools ``add(a: int, b: int) -> int``, ``remember(note: str) -> str``, ``recall() ->
  list[str]``; the notes belong to the session (one env per WebSocket) and reset clears them.
- Step actions ``{"type": "call_tool", "tool_name": ..., "arguments": {...}}`` (the /schema
  "action" is ``CallToolAction``'s) or ``{"type": "list_tools"}`` (accepted, not in /schema).
  Their observations are ``CallToolObservation`` (``tool_name``, ``result``: FastMCP's
  ``CallToolResult`` dumped, with ``data``; ``error``) or ``ListToolsObservation`` (``tools``).
  Reward ``None``: the reference sets none for tool steps. An unknown tool or bad arguments
  are no wire error but an observation with ``error: {"error_type": "tool_not_found" |
  "invalid_args", "message"}``; over JSON-RPC (``{"type": "mcp"}``) they are ``-32603``.
- Reset returns a plain ``Observation`` (reward 0.0, ``metadata.tools``).
"""

import os
from uuid import uuid4

from fastmcp import FastMCP

from openenv.core.env_server.http_server import create_app
from openenv.core.env_server.mcp_environment import MCPEnvironment
from openenv.core.env_server.mcp_types import CallToolAction, CallToolObservation
from openenv.core.env_server.types import ConcurrencyConfig, Observation, State


class NotesEnvironment(MCPEnvironment):
    SUPPORTS_CONCURRENT_SESSIONS = True

    def __init__(self) -> None:
        mcp = FastMCP("notes")
        self._notes: list[str] = []

        @mcp.tool()
        def add(a: int, b: int) -> int:
            """Add two whole numbers."""
            return a + b

        @mcp.tool()
        def remember(note: str) -> str:
            """Keep a note for this session."""
            self._notes.append(note)
            return f"noted ({len(self._notes)})"

        @mcp.tool()
        def recall() -> list[str]:
            """The notes kept so far."""
            return list(self._notes)

        super().__init__(mcp)
        self._state = State(episode_id=str(uuid4()))

    def reset(
        self, seed: int | None = None, episode_id: str | None = None, **kwargs
    ) -> Observation:
        self._state = State(episode_id=episode_id or str(uuid4()))
        self._notes.clear()
        return Observation(reward=0.0, metadata={"tools": ["add", "remember", "recall"]})

    def _step_impl(self, action, timeout_s: float | None = None, **kwargs) -> Observation:
        raise ValueError(f"this environment takes tool calls, not {type(action).__name__}")

    @property
    def state(self) -> State:
        return self._state


app = create_app(
    NotesEnvironment,
    CallToolAction,
    CallToolObservation,
    env_name="ref_notes",
    concurrency_config=ConcurrencyConfig(
        max_concurrent_envs=int(os.environ.get("REF_MAX_CONCURRENT_ENVS", "8"))
    ),
)
