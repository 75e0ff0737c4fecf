"""Tool environments in core: tools declared as typed methods, MCP actions through step()."""

from __future__ import annotations

import json

import pytest
from pydantic import BaseModel

from openenv.core import ResetNeeded
from openenv.core.mcp import (
    CallToolAction,
    CallToolObservation,
    ListToolsAction,
    ListToolsObservation,
    MCPEnvironment,
    ReservedToolName,
    ToolErrorType,
    tool,
)
from openenv.core.serialization import model_from_wire, observation_to_wire, step_result_from_wire
from openenv.testing import check_env


class Point(BaseModel):
    x: int
    y: int = 0


class Geometry(MCPEnvironment):
    @tool
    def shift(self, points: list[Point], dx: int = 1, label: str = "moved") -> dict:
        """Shift points to the right.

        Args:
            points: The points to move.
            dx: How far to move them,
                in cells.
            label: A name for the result.
        """
        return {"label": label, "xs": [p.x + dx for p in points]}

    @tool(name="fail-loudly", description="Always raises.")
    def fail(self) -> None:
        raise RuntimeError("disk on fire")


def test_tool_names_descriptions_and_schemas_come_from_signatures_and_docstrings() -> None:
    tools = {t.name: t for t in Geometry().list_tools()}
    assert set(tools) == {"shift", "fail-loudly"}
    shift = tools["shift"]
    assert shift.description == "Shift points to the right."
    schema = shift.input_schema
    assert schema["required"] == ["points"]
    assert schema["properties"]["dx"] == {
        "default": 1,
        "description": "How far to move them, in cells.",
        "type": "integer",
    }
    item = schema["properties"]["points"]["items"]  # nested model inlined, no $ref left
    assert item["properties"]["x"] == {"type": "integer"}
    assert "$ref" not in json.dumps(schema)
    assert tools["fail-loudly"].description == "Always raises."


def test_a_tool_call_validates_arguments_into_typed_values() -> None:
    obs = Geometry().call_tool("shift", {"points": [{"x": 1}, {"x": 5, "y": 2}], "dx": 2})
    assert obs.error is None
    assert obs.result["data"] == {"label": "moved", "xs": [3, 7]}
    assert obs.result["content"] == [{"type": "text", "text": '{"label": "moved", "xs": [3, 7]}'}]


@pytest.mark.parametrize(
    ("name", "arguments", "kind", "fragment"),
    [
        ("shift", {"points": [{"x": "left"}]}, ToolErrorType.INVALID_ARGS, "points.0.x"),
        ("shift", {"points": [], "color": "red"}, ToolErrorType.INVALID_ARGS, "color"),
        ("nope", {}, ToolErrorType.TOOL_NOT_FOUND, "available tools: shift, fail-loudly"),
        ("reset", {}, ToolErrorType.TOOL_NOT_FOUND, "reserved for the orchestrator"),
        ("fail-loudly", {}, ToolErrorType.EXECUTION_ERROR, "RuntimeError: disk on fire"),
    ],
)
def test_a_failed_tool_call_is_an_observation_with_an_error(name, arguments, kind, fragment):
    obs = Geometry().call_tool(name, arguments)
    assert obs.result is None
    assert obs.error is not None and obs.error.error_type is kind
    assert fragment in obs.error.message


@pytest.mark.parametrize("reserved", ["reset", "step", "state", "close"])
def test_reserved_names_can_never_be_tools(reserved: str) -> None:
    with pytest.raises(ReservedToolName, match="reserved for the orchestrator"):

        class Sneaky(MCPEnvironment):
            @tool(name=reserved)
            def innocent(self) -> str:
                return "gotcha"


def test_step_answers_list_tools_and_call_tool_and_counts_steps() -> None:
    env = Geometry()
    with pytest.raises(ResetNeeded):
        env.step(ListToolsAction())
    env.reset(seed=1)
    listed = env.step(ListToolsAction())
    assert isinstance(listed, ListToolsObservation)
    assert [t.name for t in listed.tools] == ["shift", "fail-loudly"]
    called = env.step(CallToolAction(tool_name="shift", arguments={"points": [{"x": 0}]}))
    assert isinstance(called, CallToolObservation)
    assert called.result["data"]["xs"] == [1] and called.reward == 0.0
    assert env.state.step_count == 2


def test_wire_actions_are_told_apart_by_their_type_field() -> None:
    assert isinstance(model_from_wire({"type": "list_tools"}, CallToolAction), ListToolsAction)
    call = model_from_wire({"type": "call_tool", "tool_name": "shift"}, CallToolAction)
    assert isinstance(call, CallToolAction) and call.arguments == {}


def test_tool_observations_survive_the_wire() -> None:
    obs = Geometry().call_tool("shift", {"points": [{"x": 4}]})
    wire = json.loads(json.dumps(observation_to_wire(obs)))
    assert wire["observation"]["tool_name"] == "shift"
    back = step_result_from_wire(wire, CallToolObservation).observation
    assert back == obs


def test_tool_environments_pass_check_env() -> None:
    def call_shift(env, rng):
        return {"type": "call_tool", "tool_name": "shift", "arguments": {"points": [{"x": 1}]}}

    check_env(Geometry(), actions=call_shift, steps=5)
