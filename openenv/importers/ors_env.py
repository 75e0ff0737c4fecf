"""An ORS (Open Reward Standard) environment played as an OpenEnv tool environment.

ORS environments (``ors-sdk``'s ``ors.Environment``, or ``openreward.environments.Environment``
which has the same shape) have splits of tasks, a prompt per task and tools; a tool call
returns text blocks, a reward and whether the episode is finished. A package written by
``openenv import SOURCE --type ors`` subclasses :class:`OrsEnvironment` and names the class in
``SOURCE`` (``module:Class``); everything else is the class's own.

``reset(seed, split, task)`` builds the class on one task (``split`` default: the first,
``task`` its index, else drawn by the seed), runs its ``setup`` and shows its prompt and
tools. Actions are our tool actions: ``CallToolAction(tool_name, arguments)`` (and
``ListToolsAction``); the tool's text is the observation's ``output``, its reward the step's
reward, its ``finished`` ends the episode. The same tools answer on ``/mcp``.
"""

from __future__ import annotations

import asyncio
import importlib
import uuid
from typing import Annotated, Any, ClassVar

from pydantic import Field

from openenv.core import InvalidAction, State, Text
from openenv.core.mcp import (
    CallToolAction,
    CallToolObservation,
    MCPEnvironment,
    Tool,
    ToolError,
    ToolErrorType,
)
from openenv.importers import SourceError
from openenv.importers.aio import resolve, run_on

MAX_OUTPUT_CHARS = 50_000
SplitOption = Annotated[str | None, Field(default=None, max_length=100, description="Split")]
TaskOption = Annotated[int | None, Field(default=None, ge=0, description="Task index")]


class OrsObservation(CallToolObservation):
    split: str = Field(default="", description="The task's split")
    task_index: int = Field(default=0, description="Which task of the split (0-based)")
    prompt: str = Field(default="", description="The task's prompt (its text blocks)")
    tools: list[str] = Field(default_factory=list, description="The tools to call")
    output: str = Field(default="", description="The last tool's text blocks")


class OrsState(State):
    split: str = ""
    task_index: int = 0


def ors_class(module: str, name: str) -> type:
    """The ORS environment class ``name`` of ``module``, checked for the ORS shape."""
    try:
        found = getattr(importlib.import_module(module), name)
    except ImportError as exc:
        raise SourceError(f"cannot import {module!r}: {exc}") from exc
    except AttributeError:
        raise SourceError(f"{module!r} has no class {name!r}") from None
    needed = ("list_splits", "list_tasks", "get_prompt", "list_tools", "_call_tool")
    missing = [m for m in needed if not hasattr(found, m)]
    if not isinstance(found, type) or missing:
        raise SourceError(f"{module}:{name} is not an ORS Environment (no {', '.join(missing)})")
    return found


def split_names(cls: type) -> list[str]:
    return [getattr(s, "name", s) for s in cls.list_splits()]  # type: ignore[attr-defined]


def blocks_text(blocks: Any) -> str:
    """The text of ORS blocks (an image block is named, not inlined)."""
    if isinstance(blocks, str):
        return blocks
    parts = []
    for block in blocks or []:
        text = getattr(block, "text", None)
        parts.append(text if text is not None else f"[{getattr(block, 'type', 'block')}]")
    return "\n".join(parts)[:MAX_OUTPUT_CHARS]


class OrsEnvironment(MCPEnvironment):
    """An ORS environment class, one task per episode (see the module docstring)."""

    MODULE: ClassVar[str] = ""
    CLASS: ClassVar[str] = ""

    how_to_play = "Read the task, then call its tools (the answer tool usually ends the episode)."
    render_fps = 1

    def __init__(self) -> None:
        super().__init__()
        _, obs, state = type(self).wire_types()
        mine = isinstance(obs, type) and issubclass(obs, OrsObservation)
        self._obs_type: type[OrsObservation] = obs if mine else OrsObservation  # type: ignore[assignment]
        own_state = isinstance(state, type) and issubclass(state, OrsState)
        self._state_type: type[OrsState] = state if own_state else OrsState  # type: ignore[assignment]
        self._state = self._state_type()
        self._ors: Any = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._prompt = ""
        self._last: Any = None

    @classmethod
    def source(cls) -> type:
        return ors_class(cls.MODULE, cls.CLASS)

    def reset(  # type: ignore[override]
        self,
        seed: int | None = None,
        episode_id: str | None = None,
        split: SplitOption = None,
        task: TaskOption = None,
    ) -> Any:
        source = self.source()
        splits = split_names(source)
        chosen = split or splits[0]
        if chosen not in splits:
            raise InvalidAction(f"split must be one of {', '.join(splits)}; got {chosen!r}")
        self.close()
        self._loop = asyncio.new_event_loop()
        tasks = list(run_on(self._loop, resolve(source.list_tasks(chosen))))  # type: ignore[attr-defined]
        if task is not None and task >= len(tasks):
            raise InvalidAction(f"task must be below {len(tasks)} (split {chosen!r})")
        index = task if task is not None else self.rng.randrange(len(tasks))
        self._ors = source(task_spec=tasks[index], secrets={})
        self._prompt = blocks_text(run_on(self._loop, self._start()))
        self._state = self._state_type(
            episode_id=episode_id or str(uuid.uuid4()), split=chosen, task_index=index
        )
        self._last = self._observe(reward=0.0, metadata={"status": "ready"})
        return self._last

    async def _start(self) -> Any:
        await resolve(self._ors.setup())
        return await resolve(self._ors.get_prompt())

    def list_tools(self) -> list[Tool]:
        listed = self.source().list_tools().tools  # type: ignore[attr-defined]
        return [
            Tool(
                name=spec.name,
                description=spec.description or spec.name,
                input_schema=dict(spec.input_schema or {"type": "object", "properties": {}}),
            )
            for spec in listed
        ]

    def call_tool(self, name: str, arguments: dict[str, Any] | None = None) -> CallToolObservation:
        if self._ors is None or self._loop is None:
            raise InvalidAction("no episode: call reset() first")
        out = run_on(self._loop, self._ors._call_tool(name, dict(arguments or {}))).root
        if not out.ok:
            kind = (
                ToolErrorType.TOOL_NOT_FOUND
                if "not a valid tool" in out.error
                else ToolErrorType.INVALID_ARGS
                if "validation error" in out.error
                else ToolErrorType.EXECUTION_ERROR
            )
            return self._observe(
                tool_name=name, error=ToolError(error_type=kind, message=out.error[:2000])
            )
        text = blocks_text(out.output.blocks)
        reward = float(out.output.reward) if out.output.reward is not None else 0.0
        return self._observe(
            tool_name=name, result=text, output=text, reward=reward, done=out.output.finished
        )

    def score_tool_call(self, action: CallToolAction, observation: Any) -> Any:
        if observation.reward is None:
            observation.reward = 0.0
        self._last = observation
        return observation

    @property
    def state(self) -> OrsState:
        return self._state  # type: ignore[return-value]

    def close(self) -> None:
        if self._ors is not None and self._loop is not None:
            run_on(self._loop, resolve(self._ors.teardown()))
        if self._loop is not None:
            self._loop.close()
        self._ors, self._loop = None, None

    def render(self) -> Text | None:
        if self._ors is None:
            return None
        last = self._last
        lines = [self._prompt]
        if last is not None and last.tool_name:
            lines.append(f"[{last.tool_name}] {last.output or (last.error and last.error.message)}")
        return Text("\n\n".join(lines))

    def _observe(self, **fields: Any) -> Any:
        state: Any = self._state
        return self._obs_type(
            split=state.split,
            task_index=state.task_index,
            prompt=self._prompt,
            tools=[t.name for t in self.list_tools()],
            **fields,
        )
