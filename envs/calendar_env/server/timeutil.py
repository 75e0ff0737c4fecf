"""RFC 3339 times as the tools take and give them, and the fixed clock of the simulation.

Every time is stored as a UTC string ``YYYY-MM-DDTHH:MM:SSZ`` so that SQL compares them as
text. The simulated "now" is fixed (not the wall clock) so that seeded episodes replay exactly.
"""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta

from openenv.core.errors import InvalidAction

# Tuesday of the simulated week; "tomorrow" is Wednesday 2026-10-07.
NOW = datetime(2026, 10, 6, 8, 0, tzinfo=UTC)
WEEK_START = datetime(2026, 10, 5, tzinfo=UTC)  # Monday
WORK_START_H, WORK_END_H = 9, 17
MAX_RANGE = timedelta(days=366)


def parse_time(value: str, what: str) -> datetime:
    """An RFC 3339 timestamp with a mandatory offset (``Z`` or ``+02:00``), as UTC."""
    if not isinstance(value, str) or not 10 <= len(value) <= 40:
        raise InvalidAction(f"{what} must be an RFC 3339 timestamp such as 2026-10-07T10:00:00Z")
    try:
        parsed = datetime.fromisoformat(value.strip().replace("z", "Z"))
    except ValueError:
        raise InvalidAction(
            f"{what}={value!r} is not an RFC 3339 timestamp (e.g. 2026-10-07T10:00:00Z)"
        ) from None
    if parsed.tzinfo is None:
        raise InvalidAction(f"{what}={value!r} needs a time zone offset, e.g. Z or +02:00")
    return parsed.astimezone(UTC).replace(microsecond=0)


def parse_day(value: str, what: str) -> datetime:
    """A ``YYYY-MM-DD`` date (all-day events) as midnight UTC."""
    try:
        day = date.fromisoformat(value)
    except (TypeError, ValueError):
        raise InvalidAction(f"{what}={value!r} is not a date like 2026-10-07") from None
    return datetime(day.year, day.month, day.day, tzinfo=UTC)


def fmt(moment: datetime) -> str:
    """The stored and returned form: ``2026-10-07T10:00:00Z``."""
    return moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def parse_stored(value: str) -> datetime:
    return datetime.strptime(value, "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=UTC)


def check_range(start: datetime, end: datetime, what: str = "timeMin/timeMax") -> None:
    if end <= start:
        raise InvalidAction(f"{what}: the end must be after the start")
    if end - start > MAX_RANGE:
        raise InvalidAction(f"{what}: a range may span at most 366 days")


def day_at(day_offset: int, hour: float) -> datetime:
    """``WEEK_START`` + ``day_offset`` days, at ``hour`` (fractions are minutes)."""
    return WEEK_START + timedelta(days=day_offset, minutes=round(hour * 60))
