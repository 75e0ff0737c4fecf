"""Tool environments (MCP): tools declared as typed methods, and their wire types.

An agent acts through *tools*; the orchestrator keeps ``reset``/``step``/``state``. Declare
tools as ordinary methods and the name, description and JSON input schema come from the
signature and the docstring::

    class EchoEnvironment(MCPEnvironment):
        @tool
        def echo_message(self, message: str) -> str:
            \"\"\"Echo the provided message.

            Args:
                message: The text to send back.
            \"\"\"
            return message

Training keeps using ``step()``: ``ListToolsAction`` answers with a ``ListToolsObservation``
and ``CallToolAction`` with a ``CallToolObservation`` (``tool_name``, ``result``, ``error``)
carrying the reward. Servers also publish the tools over ``/mcp`` (JSON-RPC ``tools/list`` and
``tools/call``), which never reaches ``reset``/``step``/``state``/``close``: those names are
refused as tool names when the class is defined.

Field names and wire shapes follow the ``openenv`` 0.10.x package.

(Over 400 lines: the tool wire types, the ``@tool`` decorator and ``MCPEnvironment`` are one
contract, read and changed together.)
"""

from __future__ import annotations

import inspect
import json
import re
import uuid
from collections.abc import Callable
from enum import Enum
from typing import Any, ClassVar, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, create_model
from pydantic_core import to_jsonable_python

from openenv.core.environment import Environment
from openenv.core.errors import InvalidAction, OpenEnvError
from openenv.core.serialization import describe_validation
from openenv.core.types import Action, Observation, State

RESERVED_TOOL_NAMES = frozenset({"reset", "step", "state", "close"})

# -- wire types -----------------------------------------------------------------------------


class Tool(BaseModel):
    """One tool as listed to agents: its name, what it does, and a JSON schema of its input."""

    model_config = ConfigDict(extra="forbid")

    name: str = Field(description="Unique identifier for the tool")
    description: str = Field(description="What the tool does")
    input_schema: dict[str, Any] = Field(description="JSON Schema of the tool's arguments")


class ToolErrorType(str, Enum):
    """Why a tool call produced no result."""

    EXECUTION_ERROR = "execution_error"
    INVALID_ARGS = "invalid_args"
    TRANSPORT_ERROR = "transport_error"
    TOOL_NOT_FOUND = "tool_not_found"
    TIMEOUT = "timeout"


class ToolError(BaseModel):
    """A failed tool call: the kind of failure and a message saying what to change."""

    model_config = ConfigDict(extra="forbid")

    error_type: ToolErrorType = Field(description="Category of the error")
    message: str = Field(description="Human-readable error message")


class ListToolsAction(Action):
    """Ask the environment for its tools (answered with a :class:`ListToolsObservation`)."""

    type: Literal["list_tools"] = Field(default="list_tools", description="Action discriminator")


class CallToolAction(Action):
    """Call one tool by name with keyword arguments.

    Validating ``{"type": "list_tools"}`` against this class gives a :class:`ListToolsAction`,
    so a server whose action class is ``CallToolAction`` accepts both MCP actions.
    """

    type: Literal["call_tool"] = Field(default="call_tool", description="Action discriminator")
    tool_name: str = Field(description="Name of the tool to call")
    arguments: dict[str, Any] = Field(default_factory=dict, description="Arguments of the tool")

    @classmethod
    def model_validate(cls, obj: Any, **kwargs: Any) -> Any:
        if cls is CallToolAction and isinstance(obj, dict) and obj.get("type") == "list_tools":
            return ListToolsAction.model_validate(obj, **kwargs)
        return super().model_validate(obj, **kwargs)


class ListToolsObservation(Observation):
    """The tools an environment offers."""

    tools: list[Tool] = Field(description="Available tools with their input schemas")


class CallToolObservation(Observation):
    """The outcome of a tool call: ``result`` on success, ``error`` otherwise.

    ``result`` is ``{"content": [{"type": "text", "text": ...}], "structured_content":
    {"result": value}, "data": value, "is_error": false}``; ``data`` is the tool's return value.
    A value whose text passes ``LARGE_RESULT_CHARS`` travels once, as the text every MCP client
    reads (``"data_in_text": true`` when that text is the value's JSON): read it with
    :func:`tool_value`. ``tool_name`` is empty on the observation returned by ``reset``.
    """

    tool_name: str = Field(default="", description="Name of the tool that was called")
    result: Any = Field(default=None, description="The tool's result (see class docstring)")
    error: ToolError | None = Field(default=None, description="Why the call failed, if it did")


class SimulationDisabled(OpenEnvError):
    """reset/step/state were requested from a server running in production mode."""

    code = "UNKNOWN_TYPE"
    http_status = 404


LARGE_RESULT_CHARS = 1 << 20  # past this, a result's value is sent once (as its text)


def tool_result(value: Any) -> dict[str, Any]:
    """Wrap a tool's return value in the result shape of :class:`CallToolObservation`."""
    data = to_jsonable_python(value, fallback=repr)
    text = data if isinstance(data, str) else json.dumps(data, ensure_ascii=False)
    content = [{"type": "text", "text": text}]
    if len(text) > LARGE_RESULT_CHARS:  # three copies of tens of MB would near the frame limit
        return {"content": content, "is_error": False, "data_in_text": not isinstance(data, str)}
    return {"content": content, "structured_content": {"result": data}, "data": data,
            "is_error": False}  # fmt: skip


def tool_value(result: Any) -> Any:
    """The tool's return value from a :class:`CallToolObservation` ``result``, whichever shape
    it came in (``data``, or a large value's text); anything else is returned as it is."""
    if not isinstance(result, dict):
        return result
    if "data" in result:
        return result["data"]
    content = result.get("content")
    first = content[0] if isinstance(content, list) and content else None
    if not isinstance(first, dict) or not isinstance(first.get("text"), str):
        return result
    return json.loads(first["text"]) if result.get("data_in_text") else first["text"]


# -- declaring tools ---------------------------------------------------------------------------


class ReservedToolName(ValueError):
    """A tool was given one of the names reserved for the orchestrator."""


def tool(
    fn: Callable[..., Any] | None = None, *, name: str | None = None, description: str | None = None
) -> Any:
    """Mark a method of an :class:`MCPEnvironment` as a tool (``@tool`` or ``@tool(name=...)``).

    The tool's name defaults to the method's name and its description to the docstring's
    summary; each parameter's type annotation and ``Args:`` docstring entry give its schema.
    """

    def mark(func: Callable[..., Any]) -> Callable[..., Any]:
        tool_name = name or func.__name__
        _check_tool_name(tool_name, func)
        if inspect.iscoroutinefunction(func):
            raise TypeError(f"tool {tool_name!r} must be a plain (sync) method, not async")
        func._openenv_tool = (tool_name, description)  # type: ignore[attr-defined]
        return func

    return mark(fn) if fn is not None else mark


def _check_tool_name(name: str, func: Callable[..., Any]) -> None:
    if name in RESERVED_TOOL_NAMES:
        raise ReservedToolName(
            f"{func.__qualname__}: {name!r} cannot be a tool; reset, step, state and close are "
            "reserved for the orchestrator. Give the tool another name: @tool(name=...)"
        )
    if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_.-]{0,127}", name):
        raise ValueError(f"{func.__qualname__}: tool name {name!r} must be an identifier")


class ToolSpec:
    """A declared tool: its public :class:`Tool` description and an argument validator."""

    def __init__(self, name: str, method: Callable[..., Any], description: str | None) -> None:
        self.name = name
        self.method_name = method.__name__
        doc = inspect.getdoc(method) or ""
        summary, arg_docs = _parse_docstring(doc)
        self.arguments_model = _arguments_model(name, method, arg_docs)
        self.tool = Tool(
            name=name,
            description=description or summary or name.replace("_", " "),
            input_schema=_clean_schema(self.arguments_model.model_json_schema()),
        )

    def validate(self, arguments: Any) -> dict[str, Any]:
        """Validated keyword arguments; raises InvalidAction saying which argument is wrong."""
        if not isinstance(arguments, dict):
            raise InvalidAction(f"arguments of {self.name!r} must be a JSON object")
        try:
            parsed = self.arguments_model.model_validate(arguments)
        except ValidationError as exc:
            raise InvalidAction(
                f"invalid arguments for {self.name!r}: {describe_validation(exc)}"
            ) from None
        return {field: getattr(parsed, field) for field in type(parsed).model_fields}


_SECTION = re.compile(r"^(Args|Arguments|Parameters|Returns|Raises|Yields|Examples?|Notes?):\s*$")
_ARG_LINE = re.compile(r"^(\*{0,2}\w+)\s*(\([^)]*\))?\s*:\s*(.*)$")


def _parse_docstring(doc: str) -> tuple[str, dict[str, str]]:
    """Summary (text before the first section) and ``Args:`` descriptions by parameter."""
    summary: list[str] = []
    args: dict[str, str] = {}
    section: str | None = None
    current: str | None = None
    for line in doc.splitlines():
        header = _SECTION.match(line.strip())
        if header and not line.startswith(" "):
            section, current = header.group(1), None
            continue
        if section is None:
            summary.append(line)
        elif section in ("Args", "Arguments", "Parameters") and line.strip():
            match = _ARG_LINE.match(line.strip())
            if match and (current is None or len(line) - len(line.lstrip()) <= 4):
                current = match.group(1).lstrip("*")
                args[current] = match.group(3).strip()
            elif current is not None:
                args[current] = f"{args[current]} {line.strip()}".strip()
    return "\n".join(summary).strip(), args


def _arguments_model(
    name: str, method: Callable[..., Any], docs: dict[str, str]
) -> type[BaseModel]:
    fields: dict[str, Any] = {}
    hints = _type_hints(method)
    for param in list(inspect.signature(method).parameters.values())[1:]:
        if param.kind in (param.VAR_POSITIONAL, param.VAR_KEYWORD):
            raise TypeError(f"tool {name!r}: declare named parameters, not *args or **kwargs")
        annotation = hints.get(param.name, Any)
        default = ... if param.default is param.empty else param.default
        fields[param.name] = (annotation, Field(default, description=docs.get(param.name)))
    model_name = "".join(part.title() for part in re.split(r"[^A-Za-z0-9]", name)) + "Arguments"
    return create_model(model_name, __config__=ConfigDict(extra="forbid"), **fields)


def _type_hints(method: Callable[..., Any]) -> dict[str, Any]:
    import typing

    try:
        return typing.get_type_hints(method, include_extras=True)  # keep Field(max_length=...)
    except (NameError, TypeError) as exc:
        raise TypeError(
            f"tool {method.__qualname__}: cannot resolve its type annotations ({exc}); "
            "import the types the signature uses at module level"
        ) from exc


_DATA_KEYS = frozenset({"default", "const", "enum", "examples"})
_MAP_KEYS = frozenset({"properties", "$defs", "patternProperties"})


def _clean_schema(schema: dict[str, Any]) -> dict[str, Any]:
    """Inline ``$ref``s (unless recursive) and drop generated titles: a self-contained schema."""
    defs = schema.get("$defs", {})
    state = {"recursive": False}

    def walk(node: Any, stack: tuple[str, ...]) -> Any:
        if isinstance(node, list):
            return [walk(item, stack) for item in node]
        if not isinstance(node, dict):
            return node
        ref = node.get("$ref")
        if isinstance(ref, str) and ref.startswith("#/$defs/"):
            key = ref.split("/")[-1]
            if key in stack or key not in defs:
                state["recursive"] = True
                return node
            extra = {k: v for k, v in node.items() if k != "$ref"}
            return walk({**defs[key], **extra}, (*stack, key))
        out: dict[str, Any] = {}
        for key, value in node.items():
            if (key == "title" and isinstance(value, str)) or key == "$defs":
                continue
            if key in _DATA_KEYS:
                out[key] = value
            elif key in _MAP_KEYS and isinstance(value, dict):
                out[key] = {name: walk(sub, stack) for name, sub in value.items()}
            else:
                out[key] = walk(value, stack)
        return out

    cleaned = walk(schema, ())
    if state["recursive"]:
        cleaned["$defs"] = {k: walk(v, (k,)) for k, v in defs.items()}
    cleaned.setdefault("properties", {})
    return cleaned


# -- the environment base class ---------------------------------------------------------------


class MCPEnvironment(Environment[CallToolAction, CallToolObservation, State]):
    """An environment whose actions are tool calls.

    Declare tools with :func:`tool`. ``reset`` starts a new episode (override it to return your
    own greeting; call ``super().reset(...)`` to get fresh bookkeeping). ``step`` accepts
    :class:`ListToolsAction` and :class:`CallToolAction`; each counts as one step. Override
    :meth:`score_tool_call` to give tool calls a reward or end the episode (the default reward
    is ``0.0``), and :meth:`step_action` to accept other action types.

    ``list_tools()`` and ``call_tool(name, arguments)`` are what ``/mcp`` uses: they never
    touch the episode's bookkeeping or reward. A failed call is an observation with ``error``
    set (``tool_not_found``, ``invalid_args`` or ``execution_error``), never an exception.
    """

    _tool_specs: ClassVar[dict[str, ToolSpec]] = {}

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        specs: dict[str, ToolSpec] = {}
        for klass in reversed(cls.__mro__):
            for attr, value in vars(klass).items():
                # a subclass attribute of the same name replaces (or un-declares) a tool
                specs = {k: s for k, s in specs.items() if s.method_name != attr}
                marker = getattr(value, "_openenv_tool", None)
                if marker is not None:
                    specs[marker[0]] = ToolSpec(marker[0], value, marker[1])
        cls._tool_specs = specs

    def __init__(self) -> None:
        self._state = State()

    # -- the contract ---------------------------------------------------------------------

    # No **kwargs: a tool environment takes no reset options and refuses unknown ones.
    def reset(  # type: ignore[override]
        self, seed: int | None = None, episode_id: str | None = None
    ) -> CallToolObservation:
        self._state = State(episode_id=episode_id or str(uuid.uuid4()))
        return CallToolObservation(metadata={"status": "ready"}, reward=0.0)

    # A ListToolsAction gives a ListToolsObservation, not the CallToolObservation of ObsT.
    def step(self, action: Action) -> Observation:  # type: ignore[override]
        if isinstance(action, ListToolsAction):
            obs: Observation = ListToolsObservation(tools=self.list_tools(), reward=0.0)
        elif isinstance(action, CallToolAction):
            obs = self.score_tool_call(action, self.call_tool(action.tool_name, action.arguments))
        else:
            obs = self.step_action(action)
        self._state.step_count += 1
        return obs

    @property
    def state(self) -> State:
        return self._state

    # -- tools ----------------------------------------------------------------------------

    @classmethod
    def tool_specs(cls) -> dict[str, ToolSpec]:
        return dict(cls._tool_specs)

    def list_tools(self) -> list[Tool]:
        """The tools of this environment, as agents see them."""
        return [spec.tool for spec in self._tool_specs.values()]

    def call_tool(self, name: str, arguments: dict[str, Any] | None = None) -> CallToolObservation:
        """Run one tool; failures come back as ``error`` on the observation."""
        spec = self._tool_specs.get(name)
        if spec is None:
            return _failed(name, ToolErrorType.TOOL_NOT_FOUND, self._unknown_tool(name))
        try:
            kwargs = spec.validate(arguments if arguments is not None else {})
        except InvalidAction as exc:
            return _failed(name, ToolErrorType.INVALID_ARGS, exc.message)
        try:
            value = getattr(self, spec.method_name)(**kwargs)
        except InvalidAction as exc:
            return _failed(name, ToolErrorType.INVALID_ARGS, exc.message)
        except Exception as exc:  # the tool is user code: report its failure to the agent
            return _failed(name, ToolErrorType.EXECUTION_ERROR, f"{type(exc).__name__}: {exc}")
        return CallToolObservation(tool_name=name, result=tool_result(value))

    def _unknown_tool(self, name: str) -> str:
        available = ", ".join(self._tool_specs) or "none"
        if name in RESERVED_TOOL_NAMES:
            return (
                f"{name!r} is not a tool: reset, step, state and close are reserved for the "
                f"orchestrator and never exposed to agents. Available tools: {available}"
            )
        return f"unknown tool {name!r}; available tools: {available}"

    # -- hooks ----------------------------------------------------------------------------

    def score_tool_call(
        self, action: CallToolAction, observation: CallToolObservation
    ) -> CallToolObservation:
        """Set the reward (and ``done``) of a tool call made through ``step``. Default: 0.0."""
        observation.reward = 0.0
        return observation

    def step_action(self, action: Action) -> Observation:
        """Handle an action that is not a tool call. By default it is refused."""
        raise InvalidAction(
            f"{type(self).__name__} takes tool calls: send {{'type': 'call_tool', 'tool_name': "
            f"..., 'arguments': {{...}}}} or {{'type': 'list_tools'}}, got {type(action).__name__}"
        )


def _failed(name: str, kind: ToolErrorType, message: str) -> CallToolObservation:
    return CallToolObservation(tool_name=name, error=ToolError(error_type=kind, message=message))


def is_mcp_environment(env_cls: type | None) -> bool:
    """True for environment classes that publish tools."""
    return isinstance(env_cls, type) and issubclass(env_cls, MCPEnvironment)
