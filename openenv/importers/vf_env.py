"""A Verifiers taskset played as an OpenEnv environment (``verifiers`` >= 0.4, ``verifiers.v1``).

A package written by ``openenv import`` subclasses :class:`VerifiersEnvironment` and names its
source in three class attributes: ``TASKSET`` (the taskset id, as ``vf-eval`` takes it),
``TASKSET_CONFIG`` (its config fields) and ``ENV_ID`` (a Verifiers ``Env`` id; empty: the
taskset's own ``Env``, else the single-agent one).

The visitor (or the agent driving the client) is the Verifiers agent. ``reset(seed, task)``
picks a task (``task`` is its index; without it the seeded generator draws one) and shows its
system prompt and prompt. Each ``step(VerifiersAction(message=...))`` is one assistant turn:
the Verifiers ``Env.run`` plays on (a multi-turn env answers with its next user turn, e.g. the
game's feedback) until it waits for the next reply or the episode ends. At the end the task's
``@vf.reward`` functions score the conversation (its ``@vf.metric`` functions are reported) and
each reward, with its Verifiers weight, becomes a reward component: ``reward == Σ weight ·
score``. Rewards that need a sandbox runtime are not computed here (Verifiers itself skips them
when scoring offline) and are listed in ``skipped``.

``Env.run`` is driven on a private event loop that only runs inside ``reset``/``step``: the env
code awaits the agent's reply, we return the observation, and the next ``step`` resumes it.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import inspect
import uuid
from typing import Annotated, Any, ClassVar, Generic, TypeVar

from pydantic import Field

from openenv.core import Action, Environment, InvalidAction, Observation, State, Text
from openenv.core.errors import ExecutionError
from openenv.core.rubrics import FnRubric, WeightedSum
from openenv.importers.aio import run_on, settle

MAX_MESSAGE_CHARS = 20_000
INFINITE_POOL = 1000  # tasks drawn from when a taskset never ends
TURN_CAP = 100  # the most turns any episode may take, whatever MAX_TURNS says


class VerifiersAction(Action):
    """One assistant turn (``message``), or a call of one of the task's tools (``tool`` and
    ``arguments``), whose result joins the conversation while the turn stays open."""

    message: str = Field(
        default="",
        max_length=MAX_MESSAGE_CHARS,
        description="Your reply to the last message (the assistant turn)",
        json_schema_extra={"format": "textarea"},
    )
    tool: str | None = Field(
        default=None, max_length=200, description="Call this tool of the task instead of replying"
    )
    arguments: dict[str, Any] = Field(default_factory=dict, description="The tool's arguments")


class VerifiersObservation(Observation):
    task_index: int = Field(default=0, description="Which task of the taskset (0-based)")
    task_name: str = Field(default="", description="The task's name in its taskset, if any")
    system_prompt: str = Field(default="", description="The task's system prompt")
    prompt: str = Field(default="", description="What to answer now (the latest user turn)")
    messages: list[dict[str, str]] = Field(
        default_factory=list, description="The conversation so far: role and content"
    )
    scores: dict[str, float] = Field(
        default_factory=dict, description="Each reward function's score, at the end"
    )
    weights: dict[str, float] = Field(
        default_factory=dict, description="Each reward function's weight in the reward"
    )
    metrics: dict[str, float] = Field(
        default_factory=dict, description="The task's metrics (not in the reward), at the end"
    )
    skipped: list[str] = Field(
        default_factory=list, description="Rewards not computed here (they need a sandbox)"
    )
    tools: list[dict[str, Any]] = Field(
        default_factory=list, description="The task's tools: name, description, parameters"
    )
    message: str = Field(default="", description="What happened")


class VerifiersState(State):
    task_index: int = 0
    turns: int = 0


ActT = TypeVar("ActT", bound=VerifiersAction)
ObsT = TypeVar("ObsT", bound=VerifiersObservation)
StateT = TypeVar("StateT", bound=VerifiersState)


class VerifiersEnvironment(Environment[ActT, ObsT, StateT], Generic[ActT, ObsT, StateT]):
    """A Verifiers taskset, one episode per session (see the module docstring). Subclass it as
    ``VerifiersEnvironment[MyAction, MyObservation, MyState]`` with the package's wire types."""

    TASKSET: ClassVar[str] = ""
    TASKSET_CONFIG: ClassVar[dict[str, Any]] = {}
    ENV_ID: ClassVar[str] = ""
    MAX_TURNS: ClassVar[int] = 20

    how_to_play = (
        "Read the task, type your reply in the box and send it: you are the model. A "
        "multi-turn task answers and waits for your next reply; the reward comes at the end."
    )
    render_fps = 1

    def __init__(self) -> None:
        _, obs, state = type(self).wire_types()
        self._obs_type = _own(obs, VerifiersObservation)
        self._state_type = _own(state, VerifiersState)
        self._episode: _Episode | None = None
        self._state: Any = self._state_type()
        self._last: Any = self._obs_type()

    @classmethod
    def source(cls) -> Any:
        """The loaded Verifiers source (taskset and env), shared by every session."""
        return _source(cls.TASKSET, _frozen(cls.TASKSET_CONFIG), cls.ENV_ID)

    def reset(  # type: ignore[override]
        self,
        seed: int | None = None,
        episode_id: str | None = None,
        task: Annotated[int | None, Field(ge=0, description="Task index")] = None,
    ) -> ObsT:
        source = self.source()
        count = source.count
        if task is not None and task >= count:
            raise InvalidAction(f"task must be below {count} (the taskset has {count} tasks)")
        index = task if task is not None else self.rng.randrange(count)
        self.close()
        self.rubric = None
        self._state = self._state_type(episode_id=episode_id or str(uuid.uuid4()), task_index=index)
        self._episode = _Episode(source, source.task(index), min(self.MAX_TURNS, TURN_CAP))
        self._episode.advance(None)
        return self._observe()

    def step(self, action: ActT) -> ObsT:
        episode = self._episode
        if episode is None:
            raise InvalidAction("no episode: call reset() first")
        self._state.step_count += 1
        if action.tool is not None:
            episode.call_tool(action.tool, action.arguments)
        else:
            episode.advance(action.message)
        self._state.turns = episode.turns
        return self._observe()

    @property
    def state(self) -> StateT:
        return self._state

    def close(self) -> None:
        if self._episode is not None:
            self._episode.close()
            self._episode = None

    def render(self) -> Text | None:
        if self._episode is None:
            return None
        lines = [f"[{m['role']}]\n{m['content']}" for m in self._last.messages]
        if self._last.done:
            lines.append(f"reward {self._last.reward or 0.0:.3f}: {self._last.message}")
        return Text("\n\n".join(lines))

    # -- internals ------------------------------------------------------------------------

    def _observe(self) -> Any:
        episode = self._episode
        assert episode is not None
        task = episode.task
        done = episode.finished
        scores, weights, skipped = episode.rewards() if done else ({}, {}, [])
        if done:
            self.rubric = WeightedSum(
                {k: FnRubric(_constant(v), name=k) for k, v in scores.items()}, weights
            )
        message = (
            f"episode over ({episode.trace.stop_condition or 'the env ended it'})"
            if done
            else "your turn"
        )
        self._last = self._obs_type(
            task_index=self._state.task_index,
            task_name=str(task.data.name or ""),
            system_prompt=str(task.data.system_prompt or ""),
            prompt=episode.pending_prompt(),
            messages=episode.transcript(),
            scores=scores,
            weights=weights,
            metrics=episode.metrics() if done else {},
            skipped=skipped,
            tools=episode.tool_list(),
            message=message,
            reward=0.0,
            done=done,
        )
        return self._last


def _json(value: Any) -> str:
    import json

    return json.dumps(value, default=str)


def _own(found: type | None, base: type) -> Any:
    """The package's own wire type when it declared one, else the adapter's."""
    return found if isinstance(found, type) and issubclass(found, base) else base


def _constant(value: float) -> Any:
    """A rubric function that scores ``value`` (the Verifiers reward already computed)."""
    return lambda action, observation: value


def _frozen(config: dict[str, Any]) -> tuple[tuple[str, Any], ...]:
    import json

    return tuple(sorted((k, json.dumps(v, sort_keys=True)) for k, v in config.items()))


@functools.cache
def _source(taskset: str, config: tuple[tuple[str, Any], ...], env_id: str) -> Any:
    import json

    from openenv.importers.vf_source import load

    return load(taskset, {k: json.loads(v) for k, v in config}, env_id)


# -- driving Env.run one turn at a time -----------------------------------------------------


class _Episode:
    """One Verifiers episode on a private event loop, paused while it waits for the agent."""

    def __init__(self, source: Any, task: Any, max_turns: int) -> None:
        self.source = source
        self.task = task
        self.max_turns = max_turns
        self.turns = 0
        self.trace = source.new_trace(task)
        self._toolsets = source.toolsets(task)
        self.tools = source.tools(self._toolsets)
        self._loop = asyncio.new_event_loop()
        self._asked = asyncio.Event()
        self._reply: asyncio.Future[str] | None = None
        self._job: asyncio.Task[None] | None = None

    @property
    def finished(self) -> bool:
        return self._job is not None and self._job.done()

    def advance(self, reply: str | None) -> None:
        """Start the episode (``reply`` None) or answer its pending turn; return when it waits
        for the next reply or has ended (scored)."""
        if self._job is None:
            self._job = self._loop.create_task(self._whole())
            # an episode dropped without close() (a session reaped) just ends: no warning
            self._job._log_destroy_pending = False  # type: ignore[attr-defined]
        elif reply is None or self._reply is None or self._reply.done():
            raise InvalidAction("the episode is not waiting for a reply")
        else:
            self._asked.clear()
            self._reply.set_result(reply)
        run_on(self._loop, self._until_asked_or_done())
        job = self._job
        if job.done() and not job.cancelled() and job.exception() is not None:
            exc = job.exception()
            raise ExecutionError(f"the Verifiers env failed: {type(exc).__name__}: {exc}")

    def call_tool(self, name: str, arguments: dict[str, Any]) -> None:
        """Run one of the task's tools inside the open turn; its result joins the trace."""
        if self._reply is None or self._reply.done():
            raise InvalidAction("the episode is not waiting for a reply")
        tool = self.tools.get(name)
        if tool is None:
            raise InvalidAction(f"unknown tool {name!r}; tools: {', '.join(self.tools) or 'none'}")
        run_on(self._loop, self._call(name, tool, arguments))

    async def _call(self, name: str, tool: Any, arguments: dict[str, Any]) -> None:
        from verifiers.v1 import AssistantMessage, ToolCall, ToolMessage

        call = ToolCall(id=f"call_{len(self.trace.nodes)}", name=name, arguments=_json(arguments))
        self.add(AssistantMessage(tool_calls=[call]), sampled=True)
        try:
            result = await tool(**arguments)
        except TypeError as exc:  # arguments the tool does not take
            result = f"error: {exc}"
        except Exception as exc:  # the tool is the source's code: its failure is its answer
            result = f"error: {type(exc).__name__}: {exc}"
        text = result if isinstance(result, str) else _json(result)
        self.add(ToolMessage(tool_call_id=call.id, name=name, content=text[:MAX_MESSAGE_CHARS]))

    def tool_list(self) -> list[dict[str, Any]]:
        return [
            {
                "name": name,
                "description": (getattr(fn, "__doc__", None) or "").strip(),
                "parameters": list(inspect.signature(fn).parameters),
            }
            for name, fn in self.tools.items()
        ]

    async def ask(self) -> str:
        """What the env's code awaits for the agent's next reply."""
        self._reply = self._loop.create_future()
        self._asked.set()
        return await self._reply

    def close(self) -> None:
        if self._job is not None and not self._job.done():
            self._job.cancel()
            run_on(self._loop, settle(self._job))
        self._loop.close()

    async def _whole(self) -> None:
        for toolset in self._toolsets:
            await toolset.setup()
            await toolset.setup_task(self.task)
        await self.source.run(self.task, _Agents(self))
        self.trace.is_completed = True
        await self.task.score(self.trace)

    async def _until_asked_or_done(self) -> None:
        assert self._job is not None
        waiter = asyncio.ensure_future(self._asked.wait())
        try:
            await asyncio.wait({self._job, waiter}, return_when=asyncio.FIRST_COMPLETED)
        finally:
            waiter.cancel()
            await settle(waiter)

    # -- reading the trace ------------------------------------------------------------------

    def transcript(self) -> list[dict[str, str]]:
        return [_plain(node.message) for node in self.trace.nodes]

    def pending_prompt(self) -> str:
        """The messages since the agent's last reply (what it answers now)."""
        out: list[str] = []
        for node in reversed(self.trace.nodes):
            if node.sampled:
                break
            if getattr(node.message, "role", "") != "system":
                out.append(_plain(node.message)["content"])
        return "\n\n".join(reversed(out))

    def rewards(self) -> tuple[dict[str, float], dict[str, float], list[str]]:
        scores, weights, skipped = {}, {}, []
        for name, reward in self.trace.rewards.items():
            if reward is None:
                skipped.append(name)
                continue
            scores[name], weights[name] = float(reward.score), float(reward.weight)
        return scores, weights, skipped

    def metrics(self) -> dict[str, float]:
        return {k: float(v) for k, v in self.trace.metrics.items() if v is not None}

    def add(self, message: Any, sampled: bool = False) -> None:
        self.source.append(self.trace, message, sampled)


def _plain(message: Any) -> dict[str, str]:
    from verifiers.v1.types import content_text

    content = getattr(message, "content", None)
    text = content_text(content) if content is not None else ""
    for call in getattr(message, "tool_calls", None) or []:
        text += f"\n[tool call {call.name}({call.arguments})]"
    return {"role": str(getattr(message, "role", "")), "content": text}


class _Interaction:
    """What ``agent.interaction(task)`` gives an ``Env.run``: one reply per ``turn``."""

    def __init__(self, episode: _Episode) -> None:
        self._episode = episode

    @property
    def trace(self) -> Any:
        return self._episode.trace

    async def turn(self, message: Any = None) -> Any:
        from verifiers.v1 import AssistantMessage, Segment, UserMessage

        episode = self._episode
        if isinstance(message, str):
            episode.add(UserMessage(content=message))
        elif message is not None:
            for item in message:
                episode.add(item)
        if episode.turns >= episode.max_turns:
            episode.trace.stop("max_turns")
            return Segment(messages=[], terminated=True)
        reply = await episode.ask()
        episode.turns += 1
        answer = AssistantMessage(content=reply)
        episode.add(answer, sampled=True)
        return Segment(messages=[answer])

    async def close(self) -> Any:
        return self._episode.trace


class _Seat:
    """Every agent seat of the env: the one player driving this session."""

    def __init__(self, episode: _Episode) -> None:
        self._episode = episode

    @contextlib.asynccontextmanager
    async def interaction(self, task: Any) -> Any:
        yield _Interaction(self._episode)

    async def run(self, task: Any) -> Any:
        async with self.interaction(task) as interaction:
            await interaction.turn()
        return self._episode.trace


class _Agents:
    def __init__(self, episode: _Episode) -> None:
        self._seat = _Seat(episode)

    def __getattr__(self, name: str) -> _Seat:
        if name.startswith("_"):
            raise AttributeError(name)
        return self._seat
