"""One session's calendar database: users, calendars, events and attendees in SQLite.

Each :class:`CalendarStore` owns a private in-memory database (``sqlite3.connect(":memory:")``):
nothing is written to disk, nothing is shared between sessions, and the database disappears
with the store. Every statement is parameterised; the sizes the agent controls are bounded
(events per session, attendees per event, calendars per session, the database's page count).

Access follows the reference's ACL roles, simplified: the acting user is ``owner`` of their own
calendars and ``freeBusyReader`` of everyone else's (free/busy only, no event details).
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from calendar_env.server.timeutil import NOW, fmt, parse_stored
from openenv.core.errors import InvalidAction

MAX_EVENTS = 500  # events per session (seeded ones included)
MAX_CALENDARS = 20
MAX_ATTENDEES = 50
MAX_PAGES = 2048  # x 4 KiB pages: the database can never grow past 8 MiB

SCHEMA = """
CREATE TABLE users (id TEXT PRIMARY KEY, email TEXT UNIQUE NOT NULL, name TEXT NOT NULL);
CREATE TABLE calendars (
    id TEXT PRIMARY KEY, owner_id TEXT NOT NULL REFERENCES users(id), summary TEXT NOT NULL,
    description TEXT, time_zone TEXT NOT NULL DEFAULT 'UTC', is_primary INTEGER NOT NULL
);
CREATE TABLE events (
    id TEXT PRIMARY KEY, calendar_id TEXT NOT NULL REFERENCES calendars(id) ON DELETE CASCADE,
    summary TEXT NOT NULL, description TEXT, location TEXT,
    start TEXT NOT NULL, end TEXT NOT NULL, all_day INTEGER NOT NULL DEFAULT 0,
    status TEXT NOT NULL DEFAULT 'confirmed', created TEXT NOT NULL, updated TEXT NOT NULL,
    sequence INTEGER NOT NULL DEFAULT 0
);
CREATE TABLE attendees (
    event_id TEXT NOT NULL REFERENCES events(id) ON DELETE CASCADE, email TEXT NOT NULL,
    display_name TEXT, optional INTEGER NOT NULL DEFAULT 0,
    response_status TEXT NOT NULL DEFAULT 'needsAction', PRIMARY KEY (event_id, email)
);
CREATE INDEX events_by_calendar ON events (calendar_id, start);
CREATE INDEX attendees_by_email ON attendees (email);
"""


class CalendarError(Exception):
    """A tool call the calendar refuses for a reason other than its arguments' shape."""


class PermissionDenied(CalendarError):
    """The acting user lacks the role the operation needs on that calendar."""


class LimitReached(CalendarError):
    """A per-session bound (events, calendars) would be exceeded."""


@dataclass(frozen=True)
class Attendee:
    email: str
    display_name: str | None = None
    optional: bool = False
    response_status: str = "needsAction"


@dataclass(frozen=True)
class EventRow:
    id: str
    calendar_id: str
    summary: str
    description: str | None
    location: str | None
    start: str
    end: str
    all_day: bool
    attendees: tuple[Attendee, ...]

    @property
    def start_dt(self) -> datetime:
        return parse_stored(self.start)

    @property
    def end_dt(self) -> datetime:
        return parse_stored(self.end)


class CalendarStore:
    """The database of one session; ``user_id`` is the acting user."""

    def __init__(self, user_id: str) -> None:
        self.user_id = user_id
        self.db = sqlite3.connect(":memory:", check_same_thread=False, isolation_level=None)
        self.db.row_factory = sqlite3.Row
        self.db.execute("PRAGMA foreign_keys = ON")
        self.db.execute(f"PRAGMA max_page_count = {MAX_PAGES}")
        self.db.executescript(SCHEMA)
        self._ids = 0

    def close(self) -> None:
        self.db.close()

    def savepoint(self) -> None:
        self.db.execute("SAVEPOINT tool_call")

    def finish(self, keep: bool) -> None:
        """End a tool call: keep its writes, or undo them all (a failed call changes nothing)."""
        if not self.db.in_transaction:
            return  # SQLite already rolled the whole call back (a full database does that)
        if not keep:
            self.db.execute("ROLLBACK TO tool_call")
        self.db.execute("RELEASE tool_call")

    # -- users and calendars ----------------------------------------------------------------

    def add_user(self, user_id: str, email: str, name: str) -> None:
        self.db.execute("INSERT INTO users VALUES (?, ?, ?)", (user_id, email, name))

    def user(self, user_id: str) -> sqlite3.Row | None:
        return self.db.execute("SELECT * FROM users WHERE id = ?", (user_id,)).fetchone()

    def user_by_email(self, email: str) -> sqlite3.Row | None:
        query = "SELECT * FROM users WHERE email = ? COLLATE NOCASE"
        return self.db.execute(query, (email.strip(),)).fetchone()

    def users(self) -> list[sqlite3.Row]:
        return self.db.execute("SELECT * FROM users ORDER BY id").fetchall()

    def add_calendar(
        self,
        calendar_id: str,
        owner_id: str,
        summary: str,
        *,
        primary: bool = False,
        description: str | None = None,
        time_zone: str = "UTC",
    ) -> None:
        (count,) = self.db.execute("SELECT COUNT(*) FROM calendars").fetchone()
        if count >= MAX_CALENDARS:
            raise LimitReached(f"at most {MAX_CALENDARS} calendars per session")
        self.db.execute(
            "INSERT INTO calendars VALUES (?, ?, ?, ?, ?, ?)",
            (calendar_id, owner_id, summary, description, time_zone, int(primary)),
        )

    def resolve_calendar(self, calendar_id: str) -> sqlite3.Row:
        """A calendar by id, ``primary`` (the acting user's) or an owner's email address."""
        if calendar_id == "primary":
            query, arg = (
                "SELECT * FROM calendars WHERE owner_id = ? AND is_primary = 1",
                self.user_id,
            )
        elif "@" in calendar_id:
            query = (
                "SELECT c.* FROM calendars c JOIN users u ON u.id = c.owner_id "
                "WHERE u.email = ? COLLATE NOCASE AND c.is_primary = 1"
            )
            arg = calendar_id.strip()
        else:
            query, arg = "SELECT * FROM calendars WHERE id = ?", calendar_id
        row = self.db.execute(query, (arg,)).fetchone()
        if row is None:
            raise InvalidAction(
                f"calendar {calendar_id!r} not found; get_calendar_list lists yours"
            )
        return row

    def role(self, calendar: sqlite3.Row) -> str:
        return "owner" if calendar["owner_id"] == self.user_id else "freeBusyReader"

    def require_owner(self, calendar_id: str, operation: str) -> sqlite3.Row:
        calendar = self.resolve_calendar(calendar_id)
        if self.role(calendar) != "owner":
            raise PermissionDenied(
                f"user {self.user_id!r} lacks the writer/owner role needed to {operation} on "
                f"calendar {calendar['id']!r} (role: freeBusyReader; use query_freebusy)"
            )
        return calendar

    def own_calendars(self) -> list[sqlite3.Row]:
        query = "SELECT * FROM calendars WHERE owner_id = ? ORDER BY is_primary DESC, id"
        return self.db.execute(query, (self.user_id,)).fetchall()

    def update_calendar(self, calendar_id: str, fields: dict[str, Any]) -> None:
        for column, value in fields.items():  # column names come from our code, never the agent
            assert column in ("summary", "description", "time_zone")
            self.db.execute(f"UPDATE calendars SET {column} = ? WHERE id = ?", (value, calendar_id))

    def delete_calendar(self, calendar_id: str) -> None:
        self.db.execute("DELETE FROM calendars WHERE id = ?", (calendar_id,))

    def clear_calendar(self, calendar_id: str) -> int:
        return self.db.execute("DELETE FROM events WHERE calendar_id = ?", (calendar_id,)).rowcount

    # -- events -------------------------------------------------------------------------------

    def new_id(self, prefix: str = "evt") -> str:
        """Ids from a per-session counter: the same seed and calls give the same ids."""
        self._ids += 1
        return f"{prefix}{self._ids:04d}"

    def event_count(self) -> int:
        return self.db.execute("SELECT COUNT(*) FROM events").fetchone()[0]

    def insert_event(
        self,
        calendar_id: str,
        summary: str,
        start: datetime,
        end: datetime,
        *,
        description: str | None = None,
        location: str | None = None,
        all_day: bool = False,
        attendees: tuple[Attendee, ...] = (),
        event_id: str | None = None,
    ) -> str:
        if self.event_count() >= MAX_EVENTS:
            raise LimitReached(f"at most {MAX_EVENTS} events per session; delete some first")
        event_id = event_id or self.new_id()
        stamp = fmt(NOW)
        self.db.execute(
            "INSERT INTO events (id, calendar_id, summary, description, location, start, end, "
            "all_day, created, updated) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (
                event_id,
                calendar_id,
                summary,
                description,
                location,
                fmt(start),
                fmt(end),
                int(all_day),
                stamp,
                stamp,
            ),
        )
        self.set_attendees(event_id, attendees)
        return event_id

    def set_attendees(self, event_id: str, attendees: tuple[Attendee, ...]) -> None:
        if len(attendees) > MAX_ATTENDEES:
            raise InvalidAction(f"at most {MAX_ATTENDEES} attendees per event")
        self.db.execute("DELETE FROM attendees WHERE event_id = ?", (event_id,))
        self.db.executemany(
            "INSERT OR REPLACE INTO attendees VALUES (?, ?, ?, ?, ?)",
            [
                (event_id, a.email.lower(), a.display_name, int(a.optional), a.response_status)
                for a in attendees
            ],
        )

    def update_event(self, event_id: str, fields: dict[str, Any]) -> None:
        allowed = ("summary", "description", "location", "start", "end", "all_day", "calendar_id")
        for column, value in fields.items():  # column names come from our code, never the agent
            assert column in allowed
            self.db.execute(f"UPDATE events SET {column} = ? WHERE id = ?", (value, event_id))
        self.db.execute("UPDATE events SET sequence = sequence + 1 WHERE id = ?", (event_id,))

    def delete_event(self, event_id: str) -> None:
        self.db.execute("DELETE FROM events WHERE id = ?", (event_id,))

    def event(self, calendar_id: str, event_id: str) -> EventRow:
        row = self.db.execute(
            "SELECT * FROM events WHERE id = ? AND calendar_id = ?", (event_id, calendar_id)
        ).fetchone()
        if row is None:
            raise InvalidAction(f"event {event_id!r} not found on calendar {calendar_id!r}")
        return self._event_row(row)

    def events(
        self,
        calendar_id: str,
        time_min: datetime | None = None,
        time_max: datetime | None = None,
        q: str | None = None,
    ) -> list[EventRow]:
        """Events of one calendar overlapping [time_min, time_max), ordered by start time."""
        sql = "SELECT * FROM events WHERE calendar_id = ?"
        args: list[Any] = [calendar_id]
        if time_min is not None:
            sql += " AND end > ?"
            args.append(fmt(time_min))
        if time_max is not None:
            sql += " AND start < ?"
            args.append(fmt(time_max))
        if q:
            sql += " AND (instr(lower(summary), ?) OR instr(lower(coalesce(description, '')), ?)"
            sql += " OR instr(lower(coalesce(location, '')), ?))"
            args += [q.lower()] * 3
        rows = self.db.execute(sql + " ORDER BY start, id", args).fetchall()
        return [self._event_row(row) for row in rows]

    def all_events(self) -> list[EventRow]:
        rows = self.db.execute("SELECT * FROM events ORDER BY start, id").fetchall()
        return [self._event_row(row) for row in rows]

    def busy(self, calendar: sqlite3.Row, time_min: datetime, time_max: datetime) -> list[EventRow]:
        """What blocks a calendar's time: its confirmed events and, for a primary calendar,
        the events its owner attends anywhere (unless they declined)."""
        sql = (
            "SELECT DISTINCT e.* FROM events e LEFT JOIN attendees a ON a.event_id = e.id "
            "WHERE e.status = 'confirmed' AND e.end > ? AND e.start < ? AND (e.calendar_id = ?"
        )
        args: list[Any] = [fmt(time_min), fmt(time_max), calendar["id"]]
        if calendar["is_primary"]:
            owner = self.user(calendar["owner_id"])
            sql += " OR (a.email = ? AND a.response_status != 'declined')"
            args.append(owner["email"].lower())
        rows = self.db.execute(sql + ") ORDER BY e.start, e.id", args).fetchall()
        return [self._event_row(row) for row in rows]

    def _event_row(self, row: sqlite3.Row) -> EventRow:
        people = self.db.execute(
            "SELECT * FROM attendees WHERE event_id = ? ORDER BY email", (row["id"],)
        ).fetchall()
        return EventRow(
            id=row["id"],
            calendar_id=row["calendar_id"],
            summary=row["summary"],
            description=row["description"],
            location=row["location"],
            start=row["start"],
            end=row["end"],
            all_day=bool(row["all_day"]),
            attendees=tuple(
                Attendee(p["email"], p["display_name"], bool(p["optional"]), p["response_status"])
                for p in people
            ),
        )
