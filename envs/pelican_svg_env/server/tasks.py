"""The 30 drawing tasks: five animals, each riding six vehicles.

A vehicle says how many wheels a side view shows and how big they are against the canvas (a
skateboard's wheels are small), which the geometry layer checks.
"""

from __future__ import annotations

from dataclasses import dataclass

SUBJECTS = ("pelican", "flamingo", "penguin", "fox", "tortoise")


@dataclass(frozen=True)
class Vehicle:
    """A vehicle as seen from the side: its wheels and their smallest radius (canvas share)."""

    name: str
    wheels: int
    min_radius: float  # share of the canvas's shorter side
    phrase: str  # "riding a bicycle", "on a skateboard"


VEHICLES = (
    Vehicle("bicycle", 2, 0.06, "riding a bicycle"),
    Vehicle("unicycle", 1, 0.06, "riding a unicycle"),
    Vehicle("tricycle", 3, 0.05, "riding a tricycle"),
    Vehicle("motorcycle", 2, 0.06, "riding a motorcycle"),
    Vehicle("scooter", 2, 0.025, "riding a kick scooter"),
    Vehicle("skateboard", 2, 0.02, "riding a skateboard"),
)


@dataclass(frozen=True)
class Task:
    """One drawing to make: ``subject`` riding ``vehicle``."""

    task_id: str
    subject: str
    vehicle: Vehicle

    @property
    def prompt(self) -> str:
        article = "an" if self.subject[0] in "aeiou" else "a"
        return f"{article} {self.subject} {self.vehicle.phrase}"


TASKS = tuple(
    Task(f"{subject}-{vehicle.name}", subject, vehicle)
    for subject in SUBJECTS
    for vehicle in VEHICLES
)
TASK_IDS = tuple(task.task_id for task in TASKS)


def task_by_id(task_id: str) -> Task:
    """The task named ``task_id`` (``pelican-bicycle``); ``KeyError`` names the known ones."""
    for task in TASKS:
        if task.task_id == task_id:
            return task
    raise KeyError(f"unknown task {task_id!r}; known: {', '.join(TASK_IDS)}")
