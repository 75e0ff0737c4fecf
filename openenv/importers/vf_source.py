"""Reading a Verifiers source: its taskset, its ``Env``, its tasks and what scores them.

A source is a taskset id as ``verifiers`` resolves it (``vf-eval ID``): a taskset shipped in
``verifiers.v1.tasksets`` (``textarena``, ...) or any importable module exporting one
``vf.Taskset`` subclass in ``__all__``. :func:`load` builds it (used by the generated
environment at run time); :func:`describe` says what it holds (used by ``openenv import`` to
write the package). Environments written for the Verifiers 0.1-0.3 API (``load_environment``
returning a ``vf.SingleTurnEnv``) are refused with the reason: that API is gone from the
installed ``verifiers``.
"""

from __future__ import annotations

import importlib
import itertools
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from openenv.importers import SourceError

INFINITE_POOL = 1000  # the tasks of an endless taskset that reset draws from
MAX_TASKS = 100_000  # a finite taskset larger than this is cut here


def verifiers_v1() -> Any:
    """``verifiers.v1``, or a :class:`SourceError` saying how to install it."""
    try:
        import verifiers.v1 as vf
    except ImportError as exc:
        raise SourceError(
            f"the `verifiers` package (>= 0.4) is needed to import a Verifiers environment "
            f"({exc}): pip install 'verifiers>=0.4'"
        ) from exc
    return vf


@dataclass
class Loaded:
    """A built Verifiers source: its ``Env`` (which owns the taskset) and the tasks read so
    far (an endless taskset is read lazily, up to :data:`INFINITE_POOL` tasks)."""

    env: Any
    infinite: bool
    _tasks: list[Any] = field(default_factory=list)
    _rest: Iterator[Any] | None = None
    _lock: threading.Lock = field(default_factory=threading.Lock)  # sessions share one source

    @property
    def count(self) -> int:
        if self.infinite:
            return INFINITE_POOL
        self._read(MAX_TASKS)
        return len(self._tasks)

    def task(self, index: int) -> Any:
        self._read(index + 1)
        return self._tasks[index]

    async def run(self, task: Any, agents: Any) -> None:
        await self.env.run(task, agents)

    def new_trace(self, task: Any) -> Any:
        """A trace holding the task's system prompt and prompt, as a rollout starts."""
        vf = verifiers_v1()
        from verifiers.v1.trace import AgentInfo, TraceTask

        trace = vf.Trace(
            task=TraceTask(type=type(task).__name__, data=task.data, key=task.key, hash=task.hash),
            agent=AgentInfo(config=vf.AgentConfig(), name="openenv"),
        )
        if task.data.system_prompt:
            self.append(trace, vf.SystemMessage(content=task.data.system_prompt))
        prompt = task.data.prompt
        if isinstance(prompt, str):
            self.append(trace, vf.UserMessage(content=prompt))
        else:
            for message in prompt or []:
                self.append(trace, message)
        return trace

    def toolsets(self, task: Any) -> list[Any]:
        """Fresh instances of the task's and the taskset's tool servers, for one episode."""
        taskset = self.env.taskset
        return [*type(task).toolsets(task.config), *type(taskset).toolsets(taskset.config)]

    @staticmethod
    def tools(toolsets: list[Any]) -> dict[str, Any]:
        """Their ``@vf.tool`` methods by tool name, called here in-process (as the MCP server
        would call them, with the toolset's state around each call)."""
        from verifiers.v1.utils.decorators import discover_decorated

        return {
            getattr(fn, "tool_name", None) or fn.__name__: toolset._with_state(fn)
            for toolset in toolsets
            for fn in discover_decorated(toolset, "tool")
        }

    @staticmethod
    def append(trace: Any, message: Any, sampled: bool = False) -> None:
        from verifiers.v1.dialects.chat import parse_message
        from verifiers.v1.graph import MessageNode

        if isinstance(message, dict):
            message = parse_message(message)
        parent = len(trace.nodes) - 1 if trace.nodes else None
        trace.nodes.append(MessageNode(parent=parent, message=message, sampled=sampled))

    def _read(self, upto: int) -> None:
        with self._lock:
            if self._rest is None:
                self._rest = iter(self.env.taskset)
            if len(self._tasks) < upto:
                self._tasks.extend(itertools.islice(self._rest, upto - len(self._tasks)))


def load(taskset: str, config: dict[str, Any] | None = None, env_id: str = "") -> Loaded:
    """Build the source ``taskset`` with its config fields ``config`` (and the ``Env`` named
    ``env_id``, default the taskset's own)."""
    vf = verifiers_v1()
    _check_taskset(vf, taskset)
    raw = {"taskset": {**(config or {}), "id": taskset}, "id": env_id}
    try:
        env = vf.load_environment(vf.resolve_env_config(raw))
    except (ModuleNotFoundError, AttributeError, TypeError) as exc:
        what = f"Env {env_id!r}" if env_id else f"the Env of taskset {taskset!r}"
        raise SourceError(f"cannot build {what}: {exc}") from exc
    except ValueError as exc:  # pydantic's ValidationError is one
        raise SourceError(f"taskset {taskset!r} refuses its config {config or {}}: {exc}") from exc
    return Loaded(env=env, infinite=not env.taskset.bounded)


def _check_taskset(vf: Any, taskset: str) -> None:
    from verifiers.v1.utils.loaders import import_taskset, taskset_class

    if not taskset or not all(part.isidentifier() for part in taskset.replace("-", "_").split(".")):
        raise SourceError(
            f"{taskset!r} is not a Verifiers taskset id: give an installed taskset module "
            "(e.g. `textarena`, `my_taskset`)"
        )
    try:
        module = import_taskset(taskset)
    except ModuleNotFoundError as exc:
        raise SourceError(
            f"no Verifiers taskset {taskset!r} here: install its package (a module exporting "
            f"a vf.Taskset subclass in __all__) or check the spelling ({exc})"
        ) from exc
    except ImportError as exc:
        raise SourceError(f"taskset {taskset!r} cannot be imported here: {exc}") from exc
    try:
        taskset_class(taskset)
    except (AttributeError, TypeError, ValueError) as exc:
        if hasattr(module, "load_environment"):
            raise SourceError(
                f"{taskset!r} is written for the Verifiers 0.1-0.3 API (load_environment "
                f"returning vf.SingleTurnEnv / vf.Rubric), which verifiers "
                f"{_version()} no longer has; import a verifiers.v1 taskset instead"
            ) from exc
        raise SourceError(f"{taskset!r} is not a Verifiers taskset: {exc}") from exc


def _version() -> str:
    return str(getattr(importlib.import_module("verifiers"), "__version__", "?"))


# -- what a source holds (for the generated package) ----------------------------------------


@dataclass(frozen=True)
class Description:
    """What ``openenv import`` learned about a source, for the package it writes."""

    taskset: str
    config: dict[str, Any]
    env_id: str
    taskset_class: str
    task_class: str
    env_class: str
    multi_turn: bool
    count: int | None  # None: endless
    rewards: list[tuple[str, float]]  # (name, weight) declared by the task
    metrics: list[str]
    toolsets: list[str]
    system_prompt: str
    first_prompt: str
    verifiers_version: str

    @property
    def reward_range(self) -> tuple[float, float]:
        """Bounds of Σ weight · score when each score is in [0, 1] (the usual reward)."""
        low = sum(min(w, 0.0) for _, w in self.rewards)
        high = sum(max(w, 0.0) for _, w in self.rewards)
        return (low, high if high > low else low + 1.0)


def describe(taskset: str, config: dict[str, Any] | None = None, env_id: str = "") -> Description:
    """Build the source once and read what it holds."""
    vf = verifiers_v1()
    loaded = load(taskset, config, env_id)
    first = loaded.task(0) if loaded.infinite or loaded.count else None
    if first is None:
        raise SourceError(f"taskset {taskset!r} has no tasks")
    env = loaded.env
    hooks = first.hooks("reward")
    rewards = [(fn.__name__, float(getattr(fn, "_vf_weight", 1.0))) for fn in hooks]
    rewards += [(j.reward_name, float(j.config.weight)) for j in first.plugged_judges()]
    toolsets = [type(t).__name__ for t in type(first).toolsets(first.config)]
    toolsets += [type(t).__name__ for t in type(env.taskset).toolsets(env.taskset.config)]
    return Description(
        taskset=taskset,
        config=dict(config or {}),
        env_id=env_id,
        taskset_class=type(env.taskset).__name__,
        task_class=type(first).__name__,
        env_class=type(env).__name__,
        multi_turn=not isinstance(env, vf.SingleAgentEnv),
        count=None if loaded.infinite else loaded.count,
        rewards=rewards,
        metrics=[fn.__name__ for fn in first.hooks("metric")],
        toolsets=toolsets,
        system_prompt=str(first.data.system_prompt or ""),
        first_prompt=first.data.prompt_text,
        verifiers_version=_version(),
    )
