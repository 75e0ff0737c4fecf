"""The tasks: a goal in words, the events that set it up, and a verifier reading the database.

A verifier returns reward components in [0, 1]; the reward is their weighted sum (weights sum
to 1) and the task is solved when it reaches 1. Every component stays 0 until the agent has
acted on the goal, so an untouched calendar scores 0.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any, Literal

from calendar_env.server.store import Attendee, CalendarStore, EventRow
from calendar_env.server.timeutil import WORK_END_H, WORK_START_H, day_at, fmt
from calendar_env.server.world import (
    ACTING_USER,
    BY_ID,
    PERSONAL,
    SLOTS_PER_DAY,
    USERS,
    User,
    Week,
    add_meeting,
)

TaskName = Literal["schedule_meeting", "move_clash", "cancel_with_dave"]
TASK_NAMES: tuple[str, ...] = ("schedule_meeting", "move_clash", "cancel_with_dave")

MEETING = "Project sync"
WED, THU = 2, 3


@dataclass(frozen=True)
class Task:
    name: str
    prompt: str
    weights: dict[str, float]
    setup: Callable[[CalendarStore, random.Random, Week], dict[str, Any]]
    verify: Callable[[CalendarStore, dict[str, Any]], dict[str, float]]


# -- helpers ----------------------------------------------------------------------------------


def overlaps(a: EventRow, start: datetime, end: datetime) -> bool:
    return a.start_dt < end and start < a.end_dt


def busy_of(store: CalendarStore, user_id: str, day: int, skip: str | None) -> list[EventRow]:
    calendar = store.resolve_calendar(BY_ID[user_id].primary)
    rows = store.busy(calendar, day_at(day, 0), day_at(day + 1, 0))
    if user_id == ACTING_USER.id:
        rows += store.events(PERSONAL, day_at(day, 0), day_at(day + 1, 0))
    return [r for r in rows if r.id != skip]


def in_hours(start: datetime, end: datetime, day: int) -> bool:
    return day_at(day, WORK_START_H) <= start and end <= day_at(day, WORK_END_H)


def alice_events(store: CalendarStore) -> list[EventRow]:
    return [e for e in store.all_events() if e.calendar_id in (ACTING_USER.primary, PERSONAL)]


# -- schedule a meeting when everyone is free ---------------------------------------------------


def _setup_schedule(store: CalendarStore, rng: random.Random, week: Week) -> dict[str, Any]:
    trio = ("alice", "bob", "carol")
    for user in ("bob", "carol"):  # both are busy at some point on Wednesday
        slots = [s for s in range(SLOTS_PER_DAY - 1) if week.free(user, WED, s, 2)]
        if slots:
            add_meeting(store, week, BY_ID[user], "Deep work", WED, rng.choice(slots), 2, [])
    if not free_half_hours(store, trio, WED):  # keep at least one common free half hour
        start = day_at(WED, WORK_START_H + rng.randrange(SLOTS_PER_DAY) / 2)
        for user in trio:
            for event in busy_of(store, user, WED, None):
                if overlaps(event, start, start + timedelta(minutes=30)):
                    store.delete_event(event.id)
    return {}


def free_half_hours(store: CalendarStore, users: tuple[str, ...], day: int) -> list[datetime]:
    """Starts of the working half hours of ``day`` when all ``users`` are free."""
    busy = [e for u in users for e in busy_of(store, u, day, None)]
    starts = [day_at(day, WORK_START_H + s / 2) for s in range(SLOTS_PER_DAY)]
    return [s for s in starts if not any(overlaps(e, s, s + timedelta(minutes=30)) for e in busy)]


def _verify_schedule(store: CalendarStore, ctx: dict[str, Any]) -> dict[str, float]:
    best = {"created": 0.0, "attendees": 0.0, "timing": 0.0, "everyone_free": 0.0}
    for event in alice_events(store):
        if event.summary.strip().lower() != MEETING.lower():
            continue
        emails = {a.email for a in event.attendees}
        score = {
            "created": 1.0,
            "attendees": 1.0 if {"bob@example.com", "carol@example.com"} <= emails else 0.0,
            "timing": 1.0
            if event.end_dt - event.start_dt == timedelta(minutes=30)
            and in_hours(event.start_dt, event.end_dt, WED)
            else 0.0,
            "everyone_free": 1.0 if _all_free(store, event) else 0.0,
        }
        if sum(score.values()) > sum(best.values()):
            best = score
    return best


def _all_free(store: CalendarStore, event: EventRow) -> bool:
    """Nobody of the three is busy elsewhere during ``event``."""
    return not any(
        overlaps(other, event.start_dt, event.end_dt)
        for user in ("alice", "bob", "carol")
        for other in busy_of(store, user, WED, event.id)
    )


# -- move the clashing event -----------------------------------------------------------------


def _setup_clash(store: CalendarStore, rng: random.Random, week: Week) -> dict[str, Any]:
    for event in busy_of(store, "alice", THU, None):  # clear Alice's Thursday mornings
        if event.start_dt < day_at(THU, 13):
            store.delete_event(event.id)
    first = rng.randrange(0, 4)  # Design review starts between 09:00 and 10:30
    review = store.insert_event(
        ACTING_USER.primary,
        "Design review",
        day_at(THU, 9 + first / 2),
        day_at(THU, 10 + first / 2),
    )
    call_start = day_at(THU, 9.5 + first / 2)
    dave = BY_ID["dave"]
    call = store.insert_event(
        ACTING_USER.primary,
        "Customer call",
        call_start,
        call_start + timedelta(minutes=45),
        attendees=(_guest(dave),),
    )
    return {"review": store.event(ACTING_USER.primary, review), "call": call}


def _guest(user: User) -> Attendee:
    return Attendee(user.email, user.name, response_status="accepted")


def _verify_clash(store: CalendarStore, ctx: dict[str, Any]) -> dict[str, float]:
    zero = {"moved": 0.0, "kept_length": 0.0, "review_untouched": 0.0}
    calls = [e for e in alice_events(store) if e.id == ctx["call"]]
    original: EventRow = ctx["review"]
    if not calls:
        return zero
    call = calls[0]
    if call.start == fmt(original.start_dt + timedelta(minutes=30)):
        return zero  # not moved yet
    day = (call.start_dt - day_at(0, 0)).days
    others = busy_of(store, "alice", day, call.id)
    review = [e for e in alice_events(store) if e.id == original.id]
    return {
        "moved": 0.0 if any(overlaps(o, call.start_dt, call.end_dt) for o in others) else 1.0,
        "kept_length": 1.0
        if call.end_dt - call.start_dt == timedelta(minutes=45)
        and in_hours(call.start_dt, call.end_dt, THU)
        else 0.0,
        "review_untouched": 1.0
        if review and (review[0].start, review[0].end) == (original.start, original.end)
        else 0.0,
    }


# -- cancel every event with Dave --------------------------------------------------------------


def _setup_dave(store: CalendarStore, rng: random.Random, week: Week) -> dict[str, Any]:
    dave, alice = BY_ID["dave"], ACTING_USER
    for title in ("1:1 with Dave", "Budget review", "Onboarding plan"):
        for _ in range(20):
            day, first = rng.randrange(5), rng.randrange(SLOTS_PER_DAY - 1)
            if week.free("alice", day, first, 2) and week.free("dave", day, first, 2):
                add_meeting(store, week, alice, title, day, first, 2, [dave])
                break
    # Next Monday's meeting with Dave is not "this week": it must stay.
    store.insert_event(
        alice.primary,
        "Quarterly planning",
        day_at(7, 10),
        day_at(7, 11),
        attendees=(_guest(dave), _guest(BY_ID["bob"])),
    )
    targets = {e.id for e in this_week_with_dave(store)}
    keep = {e.id for e in alice_events(store)} - targets
    return {"targets": targets, "keep": keep}


def this_week_with_dave(store: CalendarStore) -> list[EventRow]:
    week_end = day_at(7, 0)
    return [
        e
        for e in alice_events(store)
        if e.start_dt < week_end and any(a.email == "dave@example.com" for a in e.attendees)
    ]


def _verify_dave(store: CalendarStore, ctx: dict[str, Any]) -> dict[str, float]:
    present = {e.id for e in alice_events(store)}
    removed = len(ctx["targets"] - present) / max(1, len(ctx["targets"]))
    kept = len(ctx["keep"] & present) / max(1, len(ctx["keep"]))
    return {"cancelled": removed, "others_kept": kept if removed > 0 else 0.0}


TASKS: dict[str, Task] = {
    "schedule_meeting": Task(
        "schedule_meeting",
        f"Schedule a 30-minute meeting titled '{MEETING}' with Bob (bob@example.com) and Carol "
        "(carol@example.com) tomorrow, Wednesday 2026-10-07, between 09:00 and 17:00 UTC, at a "
        "time when you, Bob and Carol are all free. Put it on your primary calendar and invite "
        "them as attendees.",
        {"created": 0.25, "attendees": 0.25, "timing": 0.25, "everyone_free": 0.25},
        _setup_schedule,
        _verify_schedule,
    ),
    "move_clash": Task(
        "move_clash",
        "Your events 'Design review' and 'Customer call' overlap on Thursday 2026-10-08. Move "
        "'Customer call' to a time that same day, between 09:00 and 17:00 UTC, when you are "
        "free, keeping its length. Leave 'Design review' where it is.",
        {"moved": 0.5, "kept_length": 0.25, "review_untouched": 0.25},
        _setup_clash,
        _verify_clash,
    ),
    "cancel_with_dave": Task(
        "cancel_with_dave",
        "Dave (dave@example.com) has left the company. Cancel (delete) every event on your "
        "calendars this week (Monday 2026-10-05 to Sunday 2026-10-11) that has Dave as an "
        "attendee, and nothing else.",
        {"cancelled": 0.75, "others_kept": 0.25},
        _setup_dave,
        _verify_dave,
    ),
}

assert set(TASKS) == set(TASK_NAMES) and all(u.id in BY_ID for u in USERS)
