"""A tool environment in the reference's MCP style (``MCPEnvironment`` around a FastMCP
server, ``CallToolAction`` steps), written against ``openenv==0.10.0``: ``add``, and a
per-session notebook (``remember``, ``recall``).
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

    def __init__(self):
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

    def reset(self, seed=None, episode_id=None, **kwargs) -> Observation:
        self._state = State(episode_id=episode_id or str(uuid4()))
        self._notes.clear()
        return Observation(reward=0.0, metadata={"tools": ["add", "remember", "recall"]})

    def _step_impl(self, action, timeout_s=None, **kwargs) -> Observation:
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
