"""Typed client of the calendar server."""

from __future__ import annotations

from calendar_env.models import CalendarAction, CalendarObservation, CalendarState
from openenv.client import EnvClient


class CalendarEnv(EnvClient[CalendarAction, CalendarObservation, CalendarState]):
    """``async with CalendarEnv(base_url=...) as env`` or ``CalendarEnv(...).sync()``.

    ``step(CalendarAction(tool_name=..., arguments={...}))`` calls a tool as a step of the
    episode (with its reward); ``list_tools()`` and ``call_tool(name, **arguments)`` call the
    same tools over the session's MCP channel, without a reward and without counting as a step
    (``call_tool`` returns the tool's value, or raises ``ToolCallError``).
    """
