"""Calendar: a simulated Google Calendar for scheduling agents. Client-side exports."""

from calendar_env.client import CalendarEnv
from calendar_env.models import (
    CalendarAction,
    CalendarObservation,
    CalendarState,
    CallToolAction,
    ListToolsAction,
    Tool,
)

__all__ = [
    "CalendarAction",
    "CalendarEnv",
    "CalendarObservation",
    "CalendarState",
    "CallToolAction",
    "ListToolsAction",
    "Tool",
]
