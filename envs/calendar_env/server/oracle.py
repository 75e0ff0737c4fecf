"""Calendar's oracle, for its default task (schedule a meeting): it reads everyone's busy time
from the env's database, finds the first half hour on Wednesday when Alice, Bob and Carol are
all free, and creates the meeting there with both invited: the verifier's full 1.0.

Score: the final reward (the verifier's score after the step). Random read-only tool calls
leave it at 0; the canary calls a tool that does not exist.
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from calendar_env.server.tasks import MEETING, WED, free_half_hours
from openenv.validation.oracle import Canary, Oracle


class CalendarOracle(Oracle):
    score_range = (0.0, 1.0)
    floor_margin = 0.5
    reset_options = {"task": "schedule_meeting"}
    max_steps = 3
    probe_steps = 4

    def act(self, env: Any, observation: Any) -> dict[str, Any] | None:
        if env.state.step_count:
            return None
        start = free_half_hours(env._store, ("alice", "bob", "carol"), WED)[0]
        end = start + timedelta(minutes=30)
        arguments = {
            "calendarId": "primary",
            "summary": MEETING,
            "start": {"dateTime": _iso(start)},
            "end": {"dateTime": _iso(end)},
            "attendees": [{"email": "bob@example.com"}, {"email": "carol@example.com"}],
        }
        return {"type": "call_tool", "tool_name": "create_event", "arguments": arguments}

    def canaries(self) -> list[Canary]:
        unknown = {"type": "call_tool", "tool_name": "grant_full_score", "arguments": {}}
        return [Canary.sequence("unknown_tool", "calls a tool that does not exist", [unknown])]


def _iso(moment: Any) -> str:
    return moment.strftime("%Y-%m-%dT%H:%M:%SZ")


ORACLE = CalendarOracle()
