"""The server: tools only, through ``step`` (``openenv`` 0.10 serves them on /mcp that way)."""

from openenv.core.env_server.http_server import create_app
from openenv.core.env_server.mcp_types import CallToolAction, CallToolObservation

from .shout_environment import ShoutEnvironment

app = create_app(ShoutEnvironment, CallToolAction, CallToolObservation, env_name="echo_env")
