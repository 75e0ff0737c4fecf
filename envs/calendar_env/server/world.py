"""The demo world: four users, their calendars and a seeded week of meetings.

Everything is drawn from the episode's ``random.Random``: the same seed builds the same
database, event ids included. The week is Monday 2026-10-05 to Sunday 2026-10-11; "now" is
Tuesday 08:00 UTC. Meetings fall on half hours between 09:00 and 17:00 UTC.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from calendar_env.server.store import Attendee, CalendarStore
from calendar_env.server.timeutil import WORK_END_H, WORK_START_H, day_at


@dataclass(frozen=True)
class User:
    id: str
    name: str

    @property
    def email(self) -> str:
        return f"{self.id}@example.com"

    @property
    def primary(self) -> str:
        return f"{self.id}-primary"


USERS = (
    User("alice", "Alice Chen"),
    User("bob", "Bob Martin"),
    User("carol", "Carol Diaz"),
    User("dave", "Dave Kim"),
)
BY_ID = {u.id: u for u in USERS}
ACTING_USER = BY_ID["alice"]
PERSONAL = "alice-personal"
TITLES = (
    "Planning",
    "Code review",
    "Interview",
    "Focus time",
    "Vendor demo",
    "Team lunch",
    "Retro",
    "Hiring sync",
    "Roadmap",
    "Office hours",
)
SLOTS_PER_DAY = (WORK_END_H - WORK_START_H) * 2  # half hours


class Week:
    """Which half hours of each user's working week are taken, so meetings do not clash."""

    def __init__(self) -> None:
        self.taken: dict[tuple[str, int], set[int]] = {}

    def free(self, user: str, day: int, first: int, length: int) -> bool:
        taken = self.taken.setdefault((user, day), set())
        return (
            first >= 0
            and first + length <= SLOTS_PER_DAY
            and not (taken & set(range(first, first + length)))
        )

    def take(self, users: list[str], day: int, first: int, length: int) -> None:
        for user in users:
            self.taken.setdefault((user, day), set()).update(range(first, first + length))


def build(store: CalendarStore, rng: random.Random, week: Week) -> None:
    """The users, their calendars and a background of meetings for every user."""
    for user in USERS:
        store.add_user(user.id, user.email, user.name)
        store.add_calendar(user.primary, user.id, user.name, primary=True)
    store.add_calendar(PERSONAL, "alice", "Personal", description="Alice's private calendar")
    for day in range(5):
        for user in USERS:
            for _ in range(rng.randint(1, 3)):
                _background_meeting(store, rng, week, user, day)


def _background_meeting(
    store: CalendarStore, rng: random.Random, week: Week, user: User, day: int
) -> None:
    length = rng.choice((1, 2, 2, 3))
    first = rng.randrange(SLOTS_PER_DAY - length + 1)
    guests = [u for u in USERS if u != user and rng.random() < 0.25]
    people = [user.id, *(g.id for g in guests)]
    if not all(week.free(p, day, first, length) for p in people):
        return  # a busy moment: this meeting simply does not happen
    add_meeting(store, week, user, rng.choice(TITLES), day, first, length, guests)


def add_meeting(
    store: CalendarStore,
    week: Week,
    owner: User,
    title: str,
    day: int,
    first: int,
    length: int,
    guests: list[User],
    *,
    calendar_id: str | None = None,
) -> str:
    """Insert a meeting at half-hour ``first`` of ``day`` lasting ``length`` half hours."""
    start = day_at(day, WORK_START_H + first / 2)
    end = day_at(day, WORK_START_H + (first + length) / 2)
    attendees = tuple(Attendee(g.email, g.name, response_status="accepted") for g in guests)
    week.take([owner.id, *(g.id for g in guests)], day, first, length)
    return store.insert_event(calendar_id or owner.primary, title, start, end, attendees=attendees)
