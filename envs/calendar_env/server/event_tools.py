"""Event and free/busy tools, named and shaped like the reference's (Google Calendar API v3).

A mixin of :class:`~calendar_env.server.environment.CalendarEnvironment`, like
:mod:`calendar_env.server.calendar_tools`. ``find_free_slots`` is this environment's addition:
the common free windows of several calendars, from the same data as ``query_freebusy``.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Annotated, Any, Literal

from pydantic import Field

from calendar_env.server.calendar_tools import MaxResults
from calendar_env.server.schemas import (
    Attendees,
    CalendarId,
    CalendarItem,
    Description,
    EventDateTime,
    EventId,
    Location,
    Summary,
    Timestamp,
    event_json,
)
from calendar_env.server.store import CalendarStore, EventRow
from calendar_env.server.timeutil import check_range, fmt, parse_day, parse_time
from openenv.core.errors import InvalidAction
from openenv.core.mcp import tool


class EventTools:
    """Tools over events and free/busy; ``store`` is the session's database."""

    store: CalendarStore

    # -- events --------------------------------------------------------------------------------

    @tool
    def list_events(
        self,
        calendarId: CalendarId,
        timeMin: Timestamp | None = None,
        timeMax: Timestamp | None = None,
        q: Annotated[str, Field(max_length=200)] | None = None,
        maxResults: MaxResults = 250,
        pageToken: Annotated[str, Field(max_length=12, pattern=r"^\d+$")] | None = None,
        orderBy: Literal["startTime", "updated"] = "startTime",
    ) -> dict[str, Any]:
        """Return the events of a calendar, ordered by start time, optionally in a time range.

        Args:
            calendarId: Calendar id, 'primary', or an owner's email address.
            timeMin: Only events ending after this time (RFC 3339).
            timeMax: Only events starting before this time (RFC 3339).
            q: Free text searched in summary, description and location.
            maxResults: Maximum number of events on one page.
            pageToken: The nextPageToken of the previous page.
            orderBy: Order of the events (both orders give start time here).
        """
        calendar = self.store.require_owner(calendarId, "list events")
        low, high = self._range(timeMin, timeMax)
        rows = self.store.events(calendar["id"], low, high, q)
        first = int(pageToken or 0)
        page = rows[first : first + maxResults]
        body: dict[str, Any] = {
            "kind": "calendar#events",
            "summary": calendar["summary"],
            "timeZone": "UTC",
            "items": [self._event_json(e) for e in page],
        }
        if first + maxResults < len(rows):
            body["nextPageToken"] = str(first + maxResults)
        return body

    @tool
    def get_event(self, calendarId: CalendarId, eventId: EventId) -> dict[str, Any]:
        """Return one event.

        Args:
            calendarId: Calendar id or 'primary'.
            eventId: The event's id.
        """
        calendar = self.store.require_owner(calendarId, "read events")
        return self._event_json(self.store.event(calendar["id"], eventId))

    @tool
    def create_event(
        self,
        calendarId: CalendarId,
        summary: Summary,
        start: EventDateTime,
        end: EventDateTime,
        description: Description | None = None,
        location: Location | None = None,
        attendees: Attendees | None = None,
    ) -> dict[str, Any]:
        """Create an event; attendees (by email) see it as busy time in their free/busy.

        Args:
            calendarId: Calendar id or 'primary'.
            summary: Title of the event.
            start: {"dateTime": "2026-10-07T10:00:00Z"} or {"date": "2026-10-07"} (all-day).
            end: Same form as start; must be after it.
            description: Longer text about the event.
            location: Where it takes place.
            attendees: People invited: [{"email": "bob@example.com"}, ...].
        """
        calendar = self.store.require_owner(calendarId, "create events")
        begin, finish, all_day = _when(start, end)
        event_id = self.store.insert_event(
            calendar["id"],
            summary,
            begin,
            finish,
            description=description,
            location=location,
            all_day=all_day,
            attendees=tuple(a.to_attendee() for a in attendees or ()),
        )
        return self._event_json(self.store.event(calendar["id"], event_id))

    @tool
    def patch_event(
        self,
        calendarId: CalendarId,
        eventId: EventId,
        summary: Summary | None = None,
        start: EventDateTime | None = None,
        end: EventDateTime | None = None,
        description: Description | None = None,
        location: Location | None = None,
        attendees: Attendees | None = None,
    ) -> dict[str, Any]:
        """Change some fields of an event (only those given); attendees replaces the list.

        Args:
            calendarId: Calendar id or 'primary'.
            eventId: The event's id.
            summary: New title.
            start: New start; give end too unless the length stays valid.
            end: New end.
            description: New description.
            location: New location.
            attendees: The new attendee list (add or remove people by sending the full list).
        """
        calendar = self.store.require_owner(calendarId, "update events")
        event = self.store.event(calendar["id"], eventId)
        fields = {"summary": summary, "description": description, "location": location}
        changes: dict[str, Any] = {k: v for k, v in fields.items() if v is not None}
        if start is not None or end is not None:
            changes.update(_times(event, start, end))
        if not changes and attendees is None:
            raise InvalidAction("no fields to change: give summary, start, end, attendees, ...")
        if changes:
            self.store.update_event(event.id, changes)
        if attendees is not None:
            self.store.set_attendees(event.id, tuple(a.to_attendee() for a in attendees))
        return self._event_json(self.store.event(calendar["id"], event.id))

    @tool
    def update_event(
        self,
        calendarId: CalendarId,
        eventId: EventId,
        summary: Summary,
        start: EventDateTime,
        end: EventDateTime,
        description: Description | None = None,
        location: Location | None = None,
        attendees: Attendees | None = None,
    ) -> dict[str, Any]:
        """Replace an event entirely: fields not given are cleared.

        Args:
            calendarId: Calendar id or 'primary'.
            eventId: The event's id.
            summary: Title of the event.
            start: New start.
            end: New end.
            description: Description (cleared when absent).
            location: Location (cleared when absent).
            attendees: Attendee list (cleared when absent).
        """
        calendar = self.store.require_owner(calendarId, "update events")
        event = self.store.event(calendar["id"], eventId)
        begin, finish, all_day = _when(start, end)
        self.store.update_event(
            event.id,
            {
                "summary": summary,
                "description": description,
                "location": location,
                "start": fmt(begin),
                "end": fmt(finish),
                "all_day": int(all_day),
            },
        )
        self.store.set_attendees(event.id, tuple(a.to_attendee() for a in attendees or ()))
        return self._event_json(self.store.event(calendar["id"], event.id))

    @tool
    def delete_event(self, calendarId: CalendarId, eventId: EventId) -> dict[str, Any]:
        """Delete (cancel) an event.

        Args:
            calendarId: Calendar id or 'primary'.
            eventId: The event's id.
        """
        calendar = self.store.require_owner(calendarId, "delete events")
        event = self.store.event(calendar["id"], eventId)
        self.store.delete_event(event.id)
        return {"deleted": event.id, "summary": event.summary}

    @tool
    def move_event(
        self, calendarId: CalendarId, eventId: EventId, destination: CalendarId
    ) -> dict[str, Any]:
        """Move an event to another calendar of the acting user (its time is unchanged).

        Args:
            calendarId: The calendar the event is on.
            eventId: The event's id.
            destination: The calendar to move it to.
        """
        source = self.store.require_owner(calendarId, "move events from it")
        target = self.store.require_owner(destination, "move events to it")
        event = self.store.event(source["id"], eventId)
        self.store.update_event(event.id, {"calendar_id": target["id"]})
        return self._event_json(self.store.event(target["id"], event.id))

    # -- free/busy -------------------------------------------------------------------------------

    @tool
    def query_freebusy(
        self,
        timeMin: Timestamp,
        timeMax: Timestamp,
        items: Annotated[list[CalendarItem], Field(min_length=1, max_length=20)],
        timeZone: str = "UTC",
    ) -> dict[str, Any]:
        """Return the busy periods of calendars (anyone's: free/busy needs no read access).

        Args:
            timeMin: Start of the queried range (RFC 3339).
            timeMax: End of the queried range (RFC 3339).
            items: Calendars to query: [{"id": "bob@example.com"}, {"id": "primary"}].
            timeZone: Time zone of the answer (UTC).
        """
        low, high = self._range(timeMin, timeMax, required=True)
        calendars: dict[str, Any] = {}
        for item in items:
            try:
                calendar = self.store.resolve_calendar(item.id)
            except InvalidAction:
                calendars[item.id] = {"busy": [], "errors": [{"reason": "notFound"}]}
                continue
            periods = _merge(self.store.busy(calendar, low, high), low, high)
            calendars[item.id] = {"busy": [{"start": fmt(s), "end": fmt(e)} for s, e in periods]}
        return {
            "kind": "calendar#freeBusy",
            "timeMin": fmt(low),
            "timeMax": fmt(high),
            "calendars": calendars,
        }

    @tool
    def find_free_slots(
        self,
        calendarIds: Annotated[list[CalendarId], Field(min_length=1, max_length=20)],
        timeMin: Timestamp,
        timeMax: Timestamp,
        durationMinutes: Annotated[int, Field(ge=5, le=1440)] = 30,
        maxResults: Annotated[int, Field(ge=1, le=50)] = 20,
    ) -> dict[str, Any]:
        """Return the windows of at least durationMinutes when all the calendars are free.

        Args:
            calendarIds: Calendar ids, 'primary', or email addresses.
            timeMin: Start of the search range (RFC 3339).
            timeMax: End of the search range (RFC 3339).
            durationMinutes: The shortest window worth returning.
            maxResults: Maximum number of windows returned.
        """
        low, high = self._range(timeMin, timeMax, required=True)
        busy: list[EventRow] = []
        for calendar_id in calendarIds:
            busy += self.store.busy(self.store.resolve_calendar(calendar_id), low, high)
        windows, cursor = [], low
        for start, end in [*_merge(busy, low, high), (high, high)]:
            if start - cursor >= timedelta(minutes=durationMinutes):
                windows.append({"start": fmt(cursor), "end": fmt(start)})
            cursor = max(cursor, end)
        return {"durationMinutes": durationMinutes, "slots": windows[:maxResults]}

    # -- helpers ------------------------------------------------------------------------------

    def _event_json(self, event: EventRow) -> dict[str, Any]:
        calendar = self.store.resolve_calendar(event.calendar_id)
        return event_json(event, self.store.user(calendar["owner_id"])["email"])

    def _range(
        self, time_min: str | None, time_max: str | None, required: bool = False
    ) -> tuple[Any, Any]:
        low = parse_time(time_min, "timeMin") if time_min else None
        high = parse_time(time_max, "timeMax") if time_max else None
        if low is not None and high is not None:
            check_range(low, high)
        if required and (low is None or high is None):
            raise InvalidAction("timeMin and timeMax are both required")
        return low, high


def _moment(value: EventDateTime, what: str) -> tuple[datetime, bool]:
    if (value.dateTime is None) == (value.date is None):
        raise InvalidAction(f"{what}: give exactly one of dateTime or date")
    if value.dateTime is not None:
        return parse_time(value.dateTime, f"{what}.dateTime"), False
    return parse_day(value.date or "", f"{what}.date"), True


def _when(start: EventDateTime, end: EventDateTime) -> tuple[datetime, datetime, bool]:
    begin, all_day = _moment(start, "start")
    finish, end_all_day = _moment(end, "end")
    if all_day != end_all_day:
        raise InvalidAction("start and end must both use dateTime, or both use date")
    check_range(begin, finish, "start/end")
    return begin, finish, all_day


def _times(event: EventRow, start: EventDateTime | None, end: EventDateTime | None) -> dict:
    begin, all_day = _moment(start, "start") if start else (event.start_dt, event.all_day)
    finish, end_all_day = _moment(end, "end") if end else (event.end_dt, event.all_day)
    if all_day != end_all_day:
        raise InvalidAction("start and end must both use dateTime, or both use date")
    check_range(begin, finish, "start/end")
    return {"start": fmt(begin), "end": fmt(finish), "all_day": int(all_day)}


def _merge(
    events: list[EventRow], low: datetime, high: datetime
) -> list[tuple[datetime, datetime]]:
    """Busy periods: overlapping events merged, clipped to [low, high)."""
    merged: list[tuple[datetime, datetime]] = []
    for event in sorted(events, key=lambda e: (e.start, e.end)):
        start, end = max(event.start_dt, low), min(event.end_dt, high)
        if merged and start <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(merged[-1][1], end))
        elif start < end:
            merged.append((start, end))
    return merged
