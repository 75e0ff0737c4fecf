"""The calendar env over the wire: a scripted agent solves each task, bad tool arguments give
the tool's error and the episode goes on, sessions never see each other's database."""

from __future__ import annotations

import json
from datetime import datetime, timedelta

import httpx
import pytest
from calendar_env import CalendarAction, CalendarEnv, ListToolsAction
from calendar_env.server.environment import CalendarEnvironment
from calendar_env.server.store import MAX_EVENTS
from websockets.sync.client import connect

from openenv.core import ClientError, Svg
from openenv.core.errors import ToolCallError
from openenv.testing import check_env, check_task_source
from tests.conftest import env_fixtures

url, env = env_fixtures("calendar_env.server.app:app", CalendarEnv)
TASKS = ("schedule_meeting", "move_clash", "cancel_with_dave")
# The reference calendar env's tool names (Google Calendar API v3 operations).
REFERENCE_TOOLS = {
    "create_calendar", "get_calendar", "patch_calendar", "update_calendar", "delete_calendar",
    "clear_calendar", "get_calendar_list", "get_calendar_from_list", "add_calendar_to_list",
    "update_calendar_in_list", "replace_calendar_in_list", "remove_calendar_from_list",
    "watch_calendar_list", "list_events", "create_event", "get_event", "patch_event",
    "update_event", "delete_event", "move_event", "quick_add_event", "import_event",
    "get_event_instances", "watch_events", "get_colors", "get_user_by_email", "get_settings",
    "list_settings", "watch_settings", "get_acl_rule", "list_acl_rules", "insert_acl_rule",
    "update_acl_rule", "patch_acl_rule", "delete_acl_rule", "watch_acl", "query_freebusy",
}  # fmt: skip
WED = {"timeMin": "2026-10-07T09:00:00Z", "timeMax": "2026-10-07T17:00:00Z"}


def iso(moment: datetime) -> str:
    return moment.strftime("%Y-%m-%dT%H:%M:%SZ")


def parse(text: str) -> datetime:
    return datetime.strptime(text, "%Y-%m-%dT%H:%M:%SZ")


class Agent:
    """Calls tools as steps of the episode and keeps the last result."""

    def __init__(self, env) -> None:
        self.env, self.last = env, None

    def __call__(self, name: str, **arguments):
        self.last = self.env.step(CalendarAction(tool_name=name, arguments=arguments))
        assert self.last.observation.error is None, self.last.observation.error
        return self.last.observation.result["data"]


def schedule(call: Agent) -> None:
    trio = ["primary", "bob@example.com", "carol@example.com"]
    slot = call("find_free_slots", calendarIds=trio, durationMinutes=30, **WED)["slots"][0]
    start = parse(slot["start"])
    call(
        "create_event",
        calendarId="primary",
        summary="Project sync",
        start={"dateTime": iso(start)},
        end={"dateTime": iso(start + timedelta(minutes=30))},
        attendees=[{"email": "bob@example.com"}, {"email": "carol@example.com"}],
    )


def move(call: Agent) -> None:
    event = call("list_events", calendarId="primary", q="Customer call")["items"][0]
    begin, finish = parse(event["start"]["dateTime"]), parse(event["end"]["dateTime"])
    thursday = {"timeMin": "2026-10-08T09:00:00Z", "timeMax": "2026-10-08T17:00:00Z"}
    slots = call("find_free_slots", calendarIds=["primary"], durationMinutes=45, **thursday)
    start = next(
        parse(s["start"])
        for s in slots["slots"]
        if parse(s["start"]) >= finish or parse(s["start"]) + timedelta(minutes=45) <= begin
    )
    new = {"start": {"dateTime": iso(start)}, "end": {"dateTime": iso(start + (finish - begin))}}
    call("patch_event", calendarId="primary", eventId=event["id"], **new)


def cancel(call: Agent) -> None:
    week = {"timeMin": "2026-10-05T00:00:00Z", "timeMax": "2026-10-12T00:00:00Z"}
    for event in call("list_events", calendarId="primary", **week)["items"]:
        if any(a["email"] == "dave@example.com" for a in event.get("attendees", [])):
            call("delete_event", calendarId="primary", eventId=event["id"])


SOLVERS = {"schedule_meeting": schedule, "move_clash": move, "cancel_with_dave": cancel}


@pytest.mark.parametrize("seed", [0, 11])
@pytest.mark.parametrize("task", TASKS)
def test_a_scripted_agent_solves_each_task_with_reward_one(env, task, seed):
    first = env.reset(seed=seed, task=task)
    assert first.reward == 0 and not first.done and first.observation.task == task
    assert first.observation.user_email == "alice@example.com" and first.observation.prompt
    agent = Agent(env)
    SOLVERS[task](agent)
    assert agent.last.reward == pytest.approx(1.0) and agent.last.done
    components = agent.last.observation.metadata["reward_components"]
    assert set(components.values()) == {1.0}
    assert env.state().solved and env.state().score == pytest.approx(1.0)


def test_partial_work_earns_partial_reward_and_the_episode_goes_on(env):
    env.reset(seed=3, task="schedule_meeting")
    agent = Agent(env)
    agent(
        "create_event",
        calendarId="primary",
        summary="Project sync",
        start={"dateTime": "2026-10-09T10:00:00Z"},  # Friday, not Wednesday; nobody invited
        end={"dateTime": "2026-10-09T11:00:00Z"},
    )
    assert 0 < agent.last.reward < 1 and not agent.last.done
    assert agent.last.observation.metadata["reward_components"]["attendees"] == 0.0


@pytest.mark.parametrize(
    ("arguments", "says"),
    [
        (
            {
                "calendarId": "primary",
                "summary": "x",
                "start": {"dateTime": "2026-10-07T10:00:00Z"},
                "end": {"dateTime": "2026-10-07T09:00:00Z"},
            },
            "end must be after the start",
        ),
        (
            {
                "calendarId": "primary",
                "summary": "x",
                "start": {"dateTime": "2026-10-07 10:00"},
                "end": {"dateTime": "2026-10-07T11:00:00Z"},
            },
            "time zone offset",
        ),
        (
            {
                "calendarId": "nope",
                "summary": "x",
                "start": {"date": "2026-10-07"},
                "end": {"date": "2026-10-08"},
            },
            "calendar 'nope' not found",
        ),
        (
            {
                "calendarId": "primary",
                "summary": "x" * 300,
                "start": {"date": "2026-10-07"},
                "end": {"date": "2026-10-08"},
            },
            "summary",
        ),
        ({"calendarId": "primary", "summary": "x", "start": {"date": "2026-10-07"}}, "end"),
        (
            {
                "calendarId": "primary",
                "summary": "x",
                "colour": "red",
                "start": {"date": "2026-10-07"},
                "end": {"date": "2026-10-08"},
            },
            "colour",
        ),
    ],
)
def test_a_wrong_tool_argument_gives_the_tool_s_error_and_the_episode_goes_on(env, arguments, says):
    env.reset(seed=0, task="schedule_meeting")
    before = env.state().event_count
    result = env.step(CalendarAction(tool_name="create_event", arguments=arguments))
    obs = result.observation
    assert obs.error is not None and obs.error.error_type.value == "invalid_args"
    assert says in obs.error.message and obs.error_message == obs.error.message
    assert obs.success is False and not result.done and result.reward == 0
    assert env.state().event_count == before and env.state().step_count == 1
    calendars = env.step(CalendarAction(tool_name="get_calendar_list")).observation
    assert calendars.success and calendars.result["data"]["items"][0]["id"] == "alice-primary"


def test_other_people_s_calendars_are_free_busy_only(env):
    env.reset(seed=0)
    refused = env.step(
        CalendarAction(tool_name="list_events", arguments={"calendarId": "bob-primary"})
    )
    assert refused.observation.error.error_type.value == "execution_error"
    assert "PermissionDenied" in refused.observation.error.message
    busy = env.step(
        CalendarAction(
            tool_name="query_freebusy", arguments={**WED, "items": [{"id": "bob@example.com"}]}
        )
    ).observation.result["data"]
    assert busy["calendars"]["bob@example.com"]["busy"]  # Bob is busy at some point on Wednesday


def test_two_sessions_do_not_see_each_other_s_events(url):
    secret = {
        "calendarId": "primary",
        "summary": "Secret interview",
        "start": {"date": "2026-10-07"},
        "end": {"date": "2026-10-08"},
    }
    with CalendarEnv(base_url=url).sync() as a, CalendarEnv(base_url=url).sync() as b:
        a.reset(seed=4)
        b.reset(seed=4)
        created = a.step(CalendarAction(tool_name="create_event", arguments=secret)).observation
        event_id = created.result["data"]["id"]
        search = {"calendarId": "primary", "q": "Secret"}
        assert a.call_tool("list_events", **search)["items"][0]["id"] == event_id
        assert b.call_tool("list_events", **search)["items"] == []
        with pytest.raises(ToolCallError, match="not found"):
            b.call_tool("get_event", calendarId="primary", eventId=event_id)
    rpc = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "tools/call",
        "params": {"name": "list_events", "arguments": search},
    }
    fresh = httpx.post(url + "/mcp", json=rpc, timeout=30).json()["result"]["data"]
    assert fresh["items"] == []  # /mcp without a session: a fresh database of its own


def test_tools_are_listed_on_mcp_and_through_step_in_both_spellings(env, url):
    names = {t["name"] for t in _rpc(url, "tools/list")["tools"]}
    assert len(REFERENCE_TOOLS) == 37 and names - REFERENCE_TOOLS == {"find_free_slots"}
    assert {"list_events", "create_event", "patch_event", "query_freebusy"} <= names
    env.reset(seed=0)
    listed = env.step(ListToolsAction()).observation.tools_list
    assert {t["name"] for t in listed} == names and "inputSchema" in listed[0]
    with connect(url.replace("http", "ws", 1) + "/ws") as ws:
        ws.send(json.dumps({"type": "reset", "data": {"seed": 0}}))
        ws.recv(timeout=30)
        reference = {
            "action_type": "ToolCallAction",
            "tool_name": "get_settings",
            "arguments": {"settingId": "timezone"},
        }
        ws.send(json.dumps({"type": "step", "data": reference}))
        obs = json.loads(ws.recv(timeout=30))["data"]["observation"]
        assert obs["success"] and obs["tool_result"]["data"]["value"] == "UTC"
        ws.send(json.dumps({"type": "step", "data": {"action_type": "ListToolsAction"}}))
        obs = json.loads(ws.recv(timeout=30))["data"]["observation"]
        assert {t["name"] for t in obs["tools_list"]} == names


def test_tools_called_over_mcp_act_on_the_session_without_a_reward_or_a_step(env):
    env.reset(seed=2, task="cancel_with_dave")
    count = env.state().event_count
    events = env.call_tool("list_events", calendarId="primary")["items"]
    env.call_tool("delete_event", calendarId="primary", eventId=events[0]["id"])
    assert env.state().step_count == 0 and env.state().event_count == count - 1
    left = env.call_tool("list_events", calendarId="primary")["items"]
    assert events[0]["id"] not in {e["id"] for e in left}


@pytest.mark.parametrize(
    ("options", "says"), [({"task": "bake_a_cake"}, "task"), ({"max_steps": 0}, "max_steps")]
)
def test_a_bad_reset_option_is_refused_and_the_session_keeps_working(env, options, says):
    with pytest.raises(ClientError, match=says):
        env.reset(seed=0, **options)
    assert env.reset(seed=0, task="move_clash").observation.task == "move_clash"


def test_the_same_seed_builds_the_same_calendar(env):
    def week(seed: int):
        env.reset(seed=seed, task="move_clash")
        return env.call_tool("list_events", calendarId="primary")["items"]

    assert week(5) == week(5)
    assert week(5) != week(6)


def _rpc(url: str, method: str, params: dict | None = None) -> dict:
    body = {"jsonrpc": "2.0", "id": 1, "method": method, "params": params or {}}
    return httpx.post(url + "/mcp", json=body, timeout=30).json()["result"]


# -- in process: the contract, limits, the drawing ------------------------------------------


@pytest.mark.parametrize("task", TASKS)
def test_the_env_honours_the_contract(task):
    assert check_env(CalendarEnvironment(), reset_kwargs={"task": task}, steps=8) == []


def test_the_event_count_per_session_is_bounded():
    env = CalendarEnvironment()
    env.reset(seed=0)
    body = {
        "calendarId": "primary",
        "summary": "x",
        "start": {"date": "2026-10-10"},
        "end": {"date": "2026-10-11"},
    }
    while env.store.event_count() < MAX_EVENTS:
        assert env.call_tool("create_event", body).error is None
    full = env.call_tool("create_event", body)
    assert full.error.error_type.value == "execution_error" and "at most 500" in full.error.message
    assert env.call_tool("get_calendar_list").error is None
    env.close()
    env.close()


def test_a_call_that_fills_the_database_changes_nothing_and_says_so():
    env = CalendarEnvironment()
    env.reset(seed=0)
    guests = [{"email": f"guest{i}@example.com", "displayName": "g" * 255} for i in range(50)]
    body = {
        "calendarId": "primary",
        "summary": "s" * 255,
        "description": "d" * 2000,
        "start": {"date": "2026-10-10"},
        "end": {"date": "2026-10-11"},
        "attendees": guests,
    }
    while (result := env.call_tool("create_event", body)).error is None:
        count = env.store.event_count()
    assert "database is full" in result.error.message
    assert env.store.event_count() == count
    assert (
        env.call_tool("delete_event", {"calendarId": "primary", "eventId": "evt0001"}).error is None
    )


def test_the_week_view_shows_a_new_event_and_escapes_its_title():
    env = CalendarEnvironment()
    env.reset(seed=1)
    before = env.render()
    assert isinstance(before, Svg) and "<svg" in before.markup
    title = "<script>alert(1)</script> Sync"
    env.step(
        CalendarAction(
            tool_name="create_event",
            arguments={
                "calendarId": "primary",
                "summary": title,
                "start": {"dateTime": "2026-10-09T16:00:00Z"},
                "end": {"dateTime": "2026-10-09T17:00:00Z"},
            },
        )
    )
    after = env.render().markup
    assert after != before.markup and "&lt;script&gt;" in after and "<script>" not in after


# -- tasks from rows of a task file (task_source / task_index) ------------------------------


def test_a_row_of_the_shipped_task_file_plays_the_task_it_names(env):
    first = env.reset(seed=1, task_source="starter.jsonl", task_index=1)
    assert first.observation.task == "move_clash"
    state = env.state()
    assert (state.task, state.task_source, state.task_index) == ("move_clash", "starter.jsonl", 1)
    move(Agent(env))
    assert env.state().solved


BAD_ROWS = [  # each refused naming the row, with these words
    ({"task": "plan_party"}, r"row 0 of bad.jsonl: no task 'plan_party'; tasks: schedule"),
    ({"task": 3}, r"row 0 of bad.jsonl: Input should be a valid string"),
    ({"task": "t" * 65}, r"row 0 of bad.jsonl: String should have at most 64"),
    ({"prompt": "Book a room"}, r"has no column for 'task'"),
]


def test_the_shipped_task_file_keeps_the_task_source_contract():
    from calendar_env.server.environment import TASK_ROWS, row_task

    check_task_source(
        CalendarEnvironment,
        TASK_ROWS,
        rows=3,
        gives="task",
        replaced={"task": "move_clash"},
        read=row_task,
        bad_rows=BAD_ROWS,
    )
