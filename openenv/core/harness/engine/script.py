"""The scripted policy of the test engine: a fixed list of replies, one per assistant turn.

This is a TEST ENGINE, not a model: turn k of a conversation (k = the number of assistant messages
already in the request) gets step k of the script, so a harness solves a shipped task the same way
every time. Its tokens and logprobs still come from the tiny model scoring that reply.

A step's tool call either names its tool (``{"name": "bash", "arguments": {...}}``, given as
written) or says "run this shell command" (``{"shell": "ls -la"}``): the engine then answers with
the shell tool the REQUEST offers, whatever the harness calls it (mini-swe-agent's ``bash``,
Claude Code's ``Bash``, codex's ``exec_command`` or ``shell``, gemini-cli's
``run_shell_command``...), its arguments shaped to that tool's JSON schema (a string or an argv
list, and the other required fields filled). A request that offers none gets ``bash``.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, model_validator

from openenv.core.harness.engine.template import render_tool_call

DONE_TEXT = "The scripted test policy has no more steps."
MAX_SHELL_COMMAND = 100_000

# Shell tools by the names harnesses give them, the first offered wins; and the names their
# command argument goes by.
SHELL_TOOLS = (
    "bash",  # mini-swe-agent, opencode
    "Bash",  # Claude Code
    "exec_command",  # codex (unified exec)
    "shell",  # codex (classic shell tool: a command list)
    "shell_command",  # codex (a command string)
    "run_shell_command",  # gemini-cli
    "run_command",
)
COMMAND_FIELDS = ("command", "cmd", "commands", "script")
FALLBACK_TOOL = "bash"
FILLER_TEXT = "scripted test step"


class ScriptError(ValueError):
    """A scripted step that cannot be answered to this request (with the reason)."""


class ScriptedCall(BaseModel):
    """One tool call the script makes: a named tool with its arguments, or a shell command run
    through whichever shell tool the request offers."""

    model_config = ConfigDict(extra="forbid")

    name: str | None = Field(default=None, min_length=1, max_length=200)
    arguments: dict[str, Any] = Field(default_factory=dict)
    shell: str | None = Field(default=None, min_length=1, max_length=MAX_SHELL_COMMAND)

    @model_validator(mode="after")
    def _one_kind(self) -> ScriptedCall:
        if (self.name is None) == (self.shell is None):
            raise ValueError("a scripted call has either a tool name or a shell command, not both")
        if self.shell is not None and self.arguments:
            raise ValueError("a shell call takes no arguments: they follow the offered tool")
        return self

    def resolve(self, tools: list[dict[str, Any]] | None) -> tuple[str, dict[str, Any]]:
        """The tool name and arguments this call makes to a request offering ``tools``."""
        if self.shell is None:
            return str(self.name), self.arguments
        return shell_call(self.shell, tools)


class ScriptStep(BaseModel):
    """One assistant reply: some text, some tool calls, or both."""

    model_config = ConfigDict(extra="forbid")

    content: str = ""
    tool_calls: list[ScriptedCall] = Field(default_factory=list)

    def completion_text(self, tools: list[dict[str, Any]] | None = None) -> str:
        """The reply as the engine's template writes it, shell calls made with the shell tool
        among ``tools`` (the request's)."""
        calls = "".join(render_tool_call(*c.resolve(tools)) for c in self.tool_calls)
        return self.content + calls


class ScriptedPolicy(BaseModel):
    """A deterministic test policy: ``steps[k]`` answers the k-th assistant turn."""

    model_config = ConfigDict(extra="forbid")

    steps: list[ScriptStep] = Field(min_length=1)

    def reply(self, messages: list[dict[str, Any]]) -> ScriptStep:
        """The step for this request (a closing text reply once the script is exhausted)."""
        turn = sum(1 for m in messages if m.get("role") == "assistant")
        return self.steps[turn] if turn < len(self.steps) else ScriptStep(content=DONE_TEXT)

    @classmethod
    def load(cls, path: Path) -> ScriptedPolicy:
        """A script from a JSON file: ``{"steps": [...]}`` or a bare list of steps."""
        data = json.loads(path.read_text())
        return cls.model_validate({"steps": data} if isinstance(data, list) else data)


def _function(tool: dict[str, Any]) -> dict[str, Any]:
    inner = tool.get("function")
    return inner if isinstance(inner, dict) else tool


def offered_shell_tool(tools: list[dict[str, Any]] | None) -> dict[str, Any] | None:
    """The shell tool among a request's ``tools`` (OpenAI chat shape), by the known names."""
    by_name = {
        str(_function(t).get("name")): _function(t) for t in tools or [] if isinstance(t, dict)
    }
    return next((by_name[name] for name in SHELL_TOOLS if name in by_name), None)


def _filler(schema: Any) -> Any:
    """A value for a required field other than the command, of the type its schema names."""
    if not isinstance(schema, dict):
        return FILLER_TEXT
    if "default" in schema:
        return schema["default"]
    if isinstance(schema.get("enum"), list) and schema["enum"]:
        return schema["enum"][0]
    kind = schema.get("type")
    if isinstance(kind, list):
        kind = next((k for k in kind if k != "null"), "string")
    return {
        "boolean": False,
        "integer": int(schema.get("minimum", 1)),
        "number": schema.get("minimum", 1),
        "array": [],
        "object": {},
        "null": None,
    }.get(str(kind), FILLER_TEXT)


def shell_call(command: str, tools: list[dict[str, Any]] | None) -> tuple[str, dict[str, Any]]:
    """``command`` as a call to the shell tool ``tools`` offer: the command under the tool's
    command field (a string, or ``["bash", "-lc", command]`` where the schema takes a list), the
    other required fields filled by type. No shell tool offered: ``bash`` with a ``command``."""
    tool = offered_shell_tool(tools)
    if tool is None:
        return FALLBACK_TOOL, {"command": command}
    params = tool.get("parameters") or tool.get("input_schema") or {}
    props = params.get("properties") if isinstance(params, dict) else None
    props = props if isinstance(props, dict) else {}
    field = next((f for f in COMMAND_FIELDS if f in props), None)
    if field is None:
        raise ScriptError(
            f"the offered shell tool {tool.get('name')!r} has no command field "
            f"({', '.join(COMMAND_FIELDS)}); its fields: {', '.join(sorted(props))[:300]}"
        )
    schema = props[field] if isinstance(props[field], dict) else {}
    value: Any = ["bash", "-lc", command] if schema.get("type") == "array" else command
    arguments: dict[str, Any] = {field: value}
    for name in params.get("required") or []:
        if name not in arguments and isinstance(name, str):
            arguments[name] = _filler(props.get(name))
    return str(tool.get("name")), arguments


# The shell command with which mini-swe-agent's agent submits and stops (to other harnesses, an
# echo).
BASH_TOOL = "bash"
SUBMIT_COMMAND = "echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT"


def bash_policy(commands: list[str], *, submit: bool = True) -> ScriptedPolicy:
    """A TEST policy that runs ``commands`` one per turn through the shell tool the harness offers
    (``bash`` for mini-swe-agent, ``Bash`` for Claude Code, ...), then submits (the command that
    ends mini-swe-agent; other harnesses end on the text reply after it); deterministic, for the
    shipped tasks."""
    steps = [
        ScriptStep(
            content=f"THOUGHT: step {n + 1} of the scripted test policy.",
            tool_calls=[ScriptedCall(shell=command)],
        )
        for n, command in enumerate(commands)
    ]
    if submit:
        steps.append(
            ScriptStep(content="THOUGHT: done.", tool_calls=[ScriptedCall(shell=SUBMIT_COMMAND)])
        )
    return ScriptedPolicy(steps=steps)
