"""Two tools: ``shout(text)`` (upper case) and ``count(text)`` (its length). ``reset(self)``."""

from openenv.core.env_server.interfaces import Environment
from openenv.core.env_server.mcp_types import (
    CallToolAction,
    CallToolObservation,
    ListToolsAction,
    ListToolsObservation,
    Tool,
)
from openenv.core.env_server.types import Observation, State

TEXT = {"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]}
TOOLS = [
    Tool(name="shout", description="The text in upper case.", input_schema=TEXT),
    Tool(name="count", description="How many characters the text has.", input_schema=TEXT),
]


class ShoutEnvironment(Environment):
    SUPPORTS_CONCURRENT_SESSIONS = True

    def __init__(self):
        super().__init__()
        self._state = State(step_count=0)

    def reset(self) -> Observation:
        self._state = State(episode_id="shout", step_count=0)
        return Observation(reward=0.0, done=False, metadata={"status": "ready"})

    def step(self, action) -> Observation:
        self._state.step_count += 1
        if isinstance(action, ListToolsAction):
            return ListToolsObservation(tools=TOOLS, reward=0.0)
        if isinstance(action, CallToolAction):
            text = str(action.arguments.get("text", ""))
            value = text.upper() if action.tool_name == "shout" else len(text)
            return CallToolObservation(tool_name=action.tool_name, result=value, reward=0.0)
        raise ValueError(f"unknown action {type(action).__name__}")

    @property
    def state(self) -> State:
        return self._state
