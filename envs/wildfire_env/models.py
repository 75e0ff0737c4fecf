"""Wire types of the wildfire environment, shared by its client and its server.

Grid codes (``WildfireObservation.grid``, row by row, index ``y * width + x``):
0 ash (burnt out), 1 fuel (vegetation), 2 burning, 3 firebreak, 4 damp (watered).
"""

from __future__ import annotations

from enum import Enum

from pydantic import Field

from openenv.core import Action, Observation, State


class FireAction(str, Enum):
    WATER = "water"
    BREAK = "break"
    WAIT = "wait"


class WildfireAction(Action):
    action: FireAction = Field(description="water (3x3 drop), break (firebreak on one cell), wait")
    x: int | None = Field(default=None, description="Column of the target, 0 at the left")
    y: int | None = Field(default=None, description="Row of the target, 0 at the top")


class WildfireObservation(Observation):
    grid: list[int] = Field(default_factory=list, description="Cell codes, row by row (y*width+x)")
    width: int = Field(default=0, description="Columns")
    height: int = Field(default=0, description="Rows")
    step: int = Field(default=0, description="Simulation ticks so far")
    wind_dir: str = Field(
        default="CALM", description="Wind towards: N, NE, E, SE, S, SW, W, NW, CALM"
    )
    humidity: float = Field(default=0.25, description="0..1; damper air spreads fire less")
    burning_count: int = Field(default=0, description="Cells on fire now")
    burned_count: int = Field(default=0, description="Cells burnt to ash so far")
    remaining_water: int = Field(default=0, description="Water drops left")
    remaining_breaks: int = Field(default=0, description="Firebreaks left")
    saved_ratio: float = Field(
        default=1.0, description="Share of the map still vegetated (fuel or damp)"
    )
    message: str = Field(default="", description="What happened, in words")


class WildfireState(State):
    width: int = 0
    height: int = 0
    wind_dir: str = "CALM"
    humidity: float = 0.25
    remaining_water: int = 0
    remaining_breaks: int = 0
    total_burned: int = 0
    total_extinguished: int = 0
    last_action: str = "reset"
    max_steps: int = 100
