"""Calendar, user, settings and colour tools, named and shaped like the reference's.

A mixin of :class:`~calendar_env.server.environment.CalendarEnvironment` (its events tools are
in :mod:`calendar_env.server.event_tools`): each ``@tool`` reads or writes ``self.store``, the
session's own database. A bad argument raises ``InvalidAction`` (the agent sees
``invalid_args``); a refused operation raises a ``CalendarError`` (``execution_error``).
"""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import Field

from calendar_env.server.schemas import CalendarId, Description, Summary
from calendar_env.server.store import CalendarStore
from openenv.core.errors import InvalidAction
from openenv.core.mcp import tool

MaxResults = Annotated[int, Field(ge=1, le=250, description="At most this many items")]
SETTINGS = {"timezone": "UTC", "weekStart": "1", "format24HourTime": "true", "locale": "en"}
COLORS = {
    "calendar": {"1": {"background": "#4f86f7", "foreground": "#1d1d1d"}},
    "event": {"1": {"background": "#a4bdfc", "foreground": "#1d1d1d"}},
}


class CalendarTools:
    """Tools over the acting user's calendars; ``store`` is the session's database."""

    store: CalendarStore

    # -- calendars ----------------------------------------------------------------------------

    @tool
    def get_calendar_list(self, maxResults: MaxResults = 100) -> dict[str, Any]:
        """Return the calendars on the acting user's calendar list, with their access role.

        Args:
            maxResults: Maximum number of calendars returned.
        """
        items = [self._calendar_json(c) for c in self.store.own_calendars()]
        others = [c for c in self._all_calendars() if c["owner_id"] != self.store.user_id]
        items += [self._calendar_json(c) for c in others]
        return {"kind": "calendar#calendarList", "items": items[:maxResults]}

    @tool
    def get_calendar(self, calendarId: CalendarId) -> dict[str, Any]:
        """Return one calendar's metadata (id, summary, timeZone, accessRole).

        Args:
            calendarId: Calendar id, 'primary', or an owner's email address.
        """
        return self._calendar_json(self.store.resolve_calendar(calendarId))

    @tool
    def get_calendar_from_list(self, calendarId: CalendarId) -> dict[str, Any]:
        """Return one entry of the acting user's calendar list (as get_calendar).

        Args:
            calendarId: Calendar id, 'primary', or an owner's email address.
        """
        return self._calendar_json(self.store.resolve_calendar(calendarId))

    @tool
    def list_acl_rules(self, calendarId: CalendarId) -> dict[str, Any]:
        """Return who may do what on a calendar: its owner, and everyone's free/busy access.

        Args:
            calendarId: Calendar id, 'primary', or an owner's email address.
        """
        calendar = self.store.resolve_calendar(calendarId)
        owner = self.store.user(calendar["owner_id"])["email"]
        rules = [
            {"kind": "calendar#aclRule", "id": f"user:{owner}", "role": "owner",
             "scope": {"type": "user", "value": owner}},
            {"kind": "calendar#aclRule", "id": "default", "role": "freeBusyReader",
             "scope": {"type": "default"}},
        ]  # fmt: skip
        return {"kind": "calendar#acl", "items": rules}

    @tool
    def create_calendar(
        self, summary: Summary, description: Description | None = None, timeZone: str = "UTC"
    ) -> dict[str, Any]:
        """Create a new secondary calendar owned by the acting user.

        Args:
            summary: Title of the calendar.
            description: What the calendar is for.
            timeZone: IANA time zone name (only UTC is simulated).
        """
        if timeZone != "UTC":
            raise InvalidAction("this simulation keeps every calendar in UTC: timeZone='UTC'")
        calendar_id = self.store.new_id("cal")
        self.store.add_calendar(calendar_id, self.store.user_id, summary, description=description)
        return self._calendar_json(self.store.resolve_calendar(calendar_id))

    @tool
    def patch_calendar(
        self,
        calendarId: CalendarId,
        summary: Summary | None = None,
        description: Description | None = None,
    ) -> dict[str, Any]:
        """Change a calendar's title or description (only the fields given).

        Args:
            calendarId: Calendar id or 'primary'.
            summary: New title.
            description: New description.
        """
        calendar = self.store.require_owner(calendarId, "patch it")
        fields = {k: v for k, v in (("summary", summary), ("description", description)) if v}
        if not fields:
            raise InvalidAction("give at least one of summary, description")
        self.store.update_calendar(calendar["id"], fields)
        return self._calendar_json(self.store.resolve_calendar(calendar["id"]))

    @tool
    def delete_calendar(self, calendarId: CalendarId) -> dict[str, Any]:
        """Delete a secondary calendar and its events (a primary calendar cannot be deleted).

        Args:
            calendarId: Id of a secondary calendar the acting user owns.
        """
        calendar = self.store.require_owner(calendarId, "delete it")
        if calendar["is_primary"]:
            raise InvalidAction("a primary calendar cannot be deleted; use clear_calendar")
        self.store.delete_calendar(calendar["id"])
        return {"deleted": calendar["id"]}

    @tool
    def clear_calendar(self, calendarId: CalendarId) -> dict[str, Any]:
        """Delete every event of a calendar (the calendar itself stays).

        Args:
            calendarId: Calendar id or 'primary'.
        """
        calendar = self.store.require_owner(calendarId, "clear it")
        return {
            "cleared": calendar["id"],
            "deleted_events": self.store.clear_calendar(calendar["id"]),
        }

    # -- users, settings, colors -----------------------------------------------------------------

    @tool
    def get_user_by_email(self, email: Annotated[str, Field(min_length=3, max_length=254)]) -> dict:
        """Return a user's id, name and email address.

        Args:
            email: The email address to look up.
        """
        user = self.store.user_by_email(email)
        if user is None:
            raise InvalidAction(f"no user with email {email!r}")
        return {"id": user["id"], "email": user["email"], "name": user["name"]}

    @tool
    def list_settings(self) -> dict[str, Any]:
        """Return the acting user's settings (time zone, week start, ...)."""
        items = [{"kind": "calendar#setting", "id": k, "value": v} for k, v in SETTINGS.items()]
        return {"kind": "calendar#settings", "items": items}

    @tool
    def get_settings(self, settingId: Annotated[str, Field(min_length=1, max_length=64)]) -> dict:
        """Return one setting of the acting user.

        Args:
            settingId: The setting's id, e.g. 'timezone'.
        """
        if settingId not in SETTINGS:
            raise InvalidAction(f"no setting {settingId!r}; settings: {', '.join(SETTINGS)}")
        return {"kind": "calendar#setting", "id": settingId, "value": SETTINGS[settingId]}

    @tool
    def get_colors(self) -> dict[str, Any]:
        """Return the color definitions of calendars and events."""
        return {"kind": "calendar#colors", **COLORS}

    # -- helpers ------------------------------------------------------------------------------

    def _all_calendars(self) -> list[Any]:
        return self.store.db.execute("SELECT * FROM calendars ORDER BY id").fetchall()

    def _calendar_json(self, calendar: Any) -> dict[str, Any]:
        owner = self.store.user(calendar["owner_id"])
        body = {
            "kind": "calendar#calendarListEntry",
            "id": calendar["id"],
            "summary": calendar["summary"],
            "timeZone": calendar["time_zone"],
            "accessRole": self.store.role(calendar),
            "primary": bool(calendar["is_primary"]),
            "owner": owner["email"],
        }
        if calendar["description"]:
            body["description"] = calendar["description"]
        return body
