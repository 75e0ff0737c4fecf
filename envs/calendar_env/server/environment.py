"""Calendar: a simulated Google Calendar of four people, driven through 21 MCP tools.

Each session has its own SQLite database (in memory), built at ``reset`` from the seed: the
users Alice, Bob, Carol and Dave (``<name>@example.com``), their primary calendars
(``alice-primary``, ...), Alice's ``alice-personal`` calendar and a week of meetings (Monday
2026-10-05 to Sunday 2026-10-11; "now" is Tuesday 08:00 UTC). The agent acts as Alice: owner
of her calendars, free/busy reader of the others'.

Tools (Google Calendar API v3 names and arguments, as the reference env):
``get_calendar_list``, ``get_calendar``, ``get_calendar_from_list``, ``list_acl_rules``,
``create_calendar``, ``patch_calendar``, ``delete_calendar``, ``clear_calendar``,
``list_events``, ``get_event``, ``create_event``, ``patch_event``, ``update_event``,
``delete_event``, ``move_event``, ``query_freebusy``, ``find_free_slots`` (ours),
``get_user_by_email``, ``list_settings``, ``get_settings``, ``get_colors``.

Actions: ``CalendarAction`` (``{"type": "call_tool", ...}`` or the reference's
``{"action_type": "ToolCallAction", ...}``) and ``ListToolsAction``. A tool given bad arguments
answers with ``error`` (``invalid_args``; ``success=False``) and the episode goes on.

Reset options: ``task`` (``schedule_meeting``, ``move_clash``, ``cancel_with_dave``; none:
``schedule_meeting``) and ``max_steps``; or ``task_source`` (a task file such as the shipped
``starter.jsonl``, or a dataset) and ``task_index`` (its row; none: the seed picks one), whose
row names a ``task`` of the env, looked up as ``task`` is (nothing of a row is run). Reward:
after every step, the task's verifier reads the database and the reward is its score in
[0, 1] (a weighted sum of components, in ``metadata["reward_components"]``). The episode ends
(``done``) when the score reaches 1, or after ``max_steps`` steps.
"""

from __future__ import annotations

import random
from pathlib import Path
from typing import Annotated, Any

from pydantic import Field, TypeAdapter

from calendar_env.models import CalendarAction, CalendarObservation, CalendarState
from calendar_env.server import tasks
from calendar_env.server.calendar_tools import CalendarTools
from calendar_env.server.event_tools import EventTools
from calendar_env.server.store import MAX_PAGES, CalendarStore
from calendar_env.server.timeutil import NOW, day_at, fmt
from calendar_env.server.week_view import week_svg
from calendar_env.server.world import ACTING_USER, Week, build
from openenv.core import ActionChoice, Environment, Svg
from openenv.core.mcp import (
    CallToolObservation,
    ListToolsAction,
    MCPEnvironment,
    ToolError,
    ToolErrorType,
)
from openenv.core.rubrics import FnRubric, WeightedSum
from openenv.core.task_source import PickedTask, TaskColumns, TaskRows
from openenv.core.types import Action, Observation

DEFAULT_TASK = "schedule_meeting"
MAX_DB_MIB = MAX_PAGES * 4 // 1024
TaskOption = Annotated[tasks.TaskName, Field(description="The goal the agent is given")]
MaxSteps = Annotated[int, Field(ge=1, le=500, description="Steps before the episode is cut")]
# A row of a task file: one of the env's tasks, by name (looked up as ``task`` is). Nothing of a
# row is run: the named task's setup and verifier are.
TASK_ROWS = TaskRows(
    Path(__file__).resolve().parent.parent, TaskColumns(fields={"task": ("task", "task_id", "id")})
)
TaskSource, TaskRow = TASK_ROWS.options()
_ROW_TASK: TypeAdapter[str] = TypeAdapter(
    Annotated[str, Field(strict=True, min_length=1, max_length=64)]
)


def row_task(picked: PickedTask) -> str:
    """The task a row names; a TaskSourceError names the row and what does not fit."""
    name = picked.valid(_ROW_TASK, picked.task["task"])
    if name not in tasks.TASKS:
        raise picked.error(f"no task {name!r}; tasks: {', '.join(tasks.TASKS)}")
    return name


class CalendarEnvironment(
    EventTools,
    CalendarTools,
    MCPEnvironment,
    Environment[CalendarAction, CalendarObservation, CalendarState],
):
    """See the module docstring."""

    how_to_play = (
        "Schedule, move or cancel meetings with the tools below the calendar (Tools tab); "
        "the week view redraws after every call and the task says what scores."
    )

    def __init__(self) -> None:
        super().__init__()
        self._task = tasks.TASKS[DEFAULT_TASK]
        self._store: CalendarStore | None = None
        self._ctx: dict[str, Any] = {}
        self._components: dict[str, float] = {}
        self._max_steps = 50
        self._picked: PickedTask | None = None
        self.rubric = None

    # -- the episode ------------------------------------------------------------------------

    def reset(  # type: ignore[override]
        self,
        seed: int | None = None,
        episode_id: str | None = None,
        task: TaskOption | None = None,
        max_steps: MaxSteps = 50,
        task_source: TaskSource = None,
        task_index: TaskRow = None,
    ) -> CalendarObservation:
        super().reset(seed=seed, episode_id=episode_id)
        picked = TASK_ROWS.pick(task_source, task_index, self.rng, "task", task=task)
        name = row_task(picked) if picked else (task or DEFAULT_TASK)
        self._task, self._max_steps, self._picked = tasks.TASKS[name], max_steps, picked
        self._build(self.rng)
        self.rubric = _rubric(self._task.weights, self._components)
        self._verify()
        return self._observe(CalendarObservation(reward=0.0, metadata={"status": "ready"}))

    def step(self, action: Action) -> Observation:  # type: ignore[override]
        if isinstance(action, ListToolsAction):
            tools = [t.model_dump() for t in self.list_tools()]
            obs = CalendarObservation(tools_list=[_reference_tool(t) for t in tools])
        elif isinstance(action, CalendarAction):
            obs = _calendar_obs(self.call_tool(action.tool_name, action.arguments))
        else:
            obs = self.step_action(action)
        self._state.step_count += 1
        self._verify()
        obs.done = self._solved() or self._state.step_count >= self._max_steps
        return self._observe(obs)

    @property
    def state(self) -> CalendarState:  # type: ignore[override]
        """Read live: tools called over /mcp change the database without a step."""
        components = self._task.verify(self.store, self._ctx)
        score = sum(self._task.weights[k] * v for k, v in components.items())
        return CalendarState(
            episode_id=self._state.episode_id,
            step_count=self._state.step_count,
            task=self._task.name,
            user_email=ACTING_USER.email,
            event_count=self.store.event_count(),
            score=round(score, 6),
            solved=all(v >= 1.0 for v in components.values()),
            task_source=self._picked.source if self._picked else None,
            task_index=self._picked.index if self._picked else None,
        )

    def close(self) -> None:
        if self._store is not None:
            self._store.close()
            self._store = None

    @property
    def store(self) -> CalendarStore:  # type: ignore[override]  # the mixins' annotation
        if self._store is None:  # a tool called before any reset (e.g. /mcp on a fresh env)
            self._build(random.Random(0))
        assert self._store is not None
        return self._store

    def call_tool(self, name: str, arguments: dict[str, Any] | None = None) -> CallToolObservation:
        """Run one tool atomically: a failed call leaves the database as it was."""
        store = self.store
        store.savepoint()
        obs = super().call_tool(name, arguments)
        store.finish(keep=obs.error is None)
        if obs.error is not None and "database or disk is full" in obs.error.message:
            obs.error = ToolError(
                error_type=ToolErrorType.EXECUTION_ERROR,
                message=f"LimitReached: this session's database is full ({MAX_DB_MIB} MiB); "
                "delete events or use shorter texts",
            )
        return obs

    # -- playground -------------------------------------------------------------------------

    def render(self) -> Svg:
        score = sum(self._task.weights[k] * v for k, v in self._components.items())
        return Svg(week_svg(self.store, self._task.prompt, score))

    def legal_actions(self) -> list[ActionChoice]:
        """Read-only example calls, one button each (the Tools tab makes any call)."""
        wed = {"timeMin": fmt(day_at(2, 9)), "timeMax": fmt(day_at(2, 17))}
        thu = {"timeMin": fmt(day_at(3, 0)), "timeMax": fmt(day_at(4, 0))}
        trio = ["primary", "bob@example.com", "carol@example.com"]
        return [
            ActionChoice("My calendars", _call("get_calendar_list", {})),
            ActionChoice("My Thursday", _call("list_events", {"calendarId": "primary", **thu})),
            ActionChoice(
                "Free/busy Wed",
                _call("query_freebusy", {**wed, "items": [{"id": i} for i in trio]}),
            ),
            ActionChoice("Free slots Wed", _call("find_free_slots", {**wed, "calendarIds": trio})),
        ]

    # -- helpers ----------------------------------------------------------------------------

    def _build(self, rng: Any) -> None:
        self.close()
        self._store = CalendarStore(ACTING_USER.id)
        week = Week()
        build(self._store, rng, week)
        self._ctx = self._task.setup(self._store, rng, week)

    def _verify(self) -> None:
        self._components.clear()
        self._components.update(self._task.verify(self.store, self._ctx))

    def _solved(self) -> bool:
        return all(v >= 1.0 for v in self._components.values())

    def _observe(self, obs: CalendarObservation) -> CalendarObservation:
        obs.task, obs.prompt, obs.user_email, obs.now = (
            self._task.name,
            self._task.prompt,
            ACTING_USER.email,
            fmt(NOW),
        )
        return obs


def _rubric(weights: dict[str, float], components: dict[str, float]) -> WeightedSum:
    """The task's components as a rubric; each reads the verifier's last verdict."""

    def reader(name: str) -> FnRubric:
        return FnRubric(lambda action, obs: components.get(name, 0.0), name=name)

    return WeightedSum({name: reader(name) for name in weights}, weights)


def _calendar_obs(raw: CallToolObservation) -> CalendarObservation:
    return CalendarObservation(
        tool_name=raw.tool_name,
        result=raw.result,
        error=raw.error,
        success=raw.error is None,
        error_message=raw.error.message if raw.error else None,
        tool_result=raw.result,
    )


def _reference_tool(tool: dict[str, Any]) -> dict[str, Any]:
    return {
        "name": tool["name"],
        "description": tool["description"],
        "inputSchema": tool["input_schema"],
    }


def _call(name: str, arguments: dict[str, Any]) -> dict[str, Any]:
    return {"type": "call_tool", "tool_name": name, "arguments": arguments}
