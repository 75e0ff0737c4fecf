"""Typed tool arguments (Google Calendar API v3 spelling) and the JSON the tools return.

The argument types bound every string and list an agent sends; the tool's JSON input schema is
generated from them, so ``tools/list`` shows the same limits the server enforces.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from calendar_env.server.store import Attendee, EventRow

CalendarId = Annotated[
    str,
    Field(
        min_length=1,
        max_length=128,
        description="A calendar id from get_calendar_list, 'primary', or a user's email address",
    ),
]
EventId = Annotated[str, Field(min_length=1, max_length=128, description="The event's id")]
Summary = Annotated[str, Field(min_length=1, max_length=255, description="Title of the event")]
Description = Annotated[str, Field(max_length=2000, description="Longer text about the event")]
Location = Annotated[str, Field(max_length=500, description="Where the event takes place")]
Timestamp = Annotated[
    str,
    Field(
        min_length=10,
        max_length=40,
        description="RFC 3339 timestamp with an offset, e.g. 2026-10-07T10:00:00Z",
    ),
]


class EventDateTime(BaseModel):
    """When an event starts or ends: ``dateTime`` (timed) or ``date`` (all-day)."""

    model_config = ConfigDict(extra="forbid")

    dateTime: Timestamp | None = None
    date: Annotated[str, Field(max_length=10, description="YYYY-MM-DD, all-day")] | None = None
    timeZone: Annotated[str, Field(max_length=64)] | None = None


class AttendeeInput(BaseModel):
    """One person invited to an event."""

    model_config = ConfigDict(extra="forbid")

    email: Annotated[str, Field(min_length=3, max_length=254, pattern=r"^[^@\s]+@[^@\s]+$")]
    displayName: Annotated[str, Field(max_length=255)] | None = None
    optional: bool = False
    responseStatus: Literal["needsAction", "declined", "tentative", "accepted"] = "needsAction"

    def to_attendee(self) -> Attendee:
        return Attendee(self.email.lower(), self.displayName, self.optional, self.responseStatus)


class CalendarItem(BaseModel):
    """A calendar to query: its id or its owner's email address."""

    model_config = ConfigDict(extra="forbid")

    id: CalendarId


Attendees = Annotated[list[AttendeeInput], Field(max_length=50)]


def event_json(event: EventRow, organizer: str) -> dict[str, Any]:
    """An event as Google Calendar API v3 writes it."""
    key = "date" if event.all_day else "dateTime"
    body: dict[str, Any] = {
        "kind": "calendar#event",
        "id": event.id,
        "status": "confirmed",
        "summary": event.summary,
        "start": {key: event.start[:10] if event.all_day else event.start, "timeZone": "UTC"},
        "end": {key: event.end[:10] if event.all_day else event.end, "timeZone": "UTC"},
        "organizer": {"email": organizer},
        "calendarId": event.calendar_id,
    }
    if event.description:
        body["description"] = event.description
    if event.location:
        body["location"] = event.location
    if event.attendees:
        body["attendees"] = [_attendee_json(a) for a in event.attendees]
    return body


def _attendee_json(attendee: Attendee) -> dict[str, Any]:
    body: dict[str, Any] = {"email": attendee.email, "responseStatus": attendee.response_status}
    if attendee.display_name:
        body["displayName"] = attendee.display_name
    if attendee.optional:
        body["optional"] = True
    return body
