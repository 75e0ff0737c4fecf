"""The fire simulation: a grid of vegetation, fires that spread with the wind, water and breaks.

Every random draw comes from the ``numpy.random.Generator`` passed in, so a seed fixes the map,
the wind, the first fires and every spread.

Spread model, once per tick: a burning cell ignites each of its 8 neighbours that holds fuel
with probability ``SPREAD * fuel * (1 - humidity) * wind * (0.6 if diagonal)``, where ``fuel``
(0.3..1) is the neighbour's vegetation density and ``wind`` is 2 downwind, 0.5 upwind, 1
across. A cell burns for ``BURN_TICKS`` ticks then turns to ash. Firebreaks and ash never burn;
watered cells stay damp (unburnable) for ``DAMP_TICKS`` ticks, then dry back into fuel.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

import numpy as np

ASH, FUEL, BURNING, BREAK, DAMP = 0, 1, 2, 3, 4
SPREAD = 0.35
BURN_TICKS = 3
DAMP_TICKS = 6
DIAGONAL = 0.6
WINDS = {
    "N": (-1, 0),
    "NE": (-1, 1),
    "E": (0, 1),
    "SE": (1, 1),
    "S": (1, 0),
    "SW": (1, -1),
    "W": (0, -1),
    "NW": (-1, -1),
    "CALM": (0, 0),
}
Wind = Literal["N", "NE", "E", "SE", "S", "SW", "W", "NW", "CALM"]
NEIGHBOURS = [(dy, dx) for dy in (-1, 0, 1) for dx in (-1, 0, 1) if (dy, dx) != (0, 0)]


def wind_factor(dy: int, dx: int, wind: str) -> float:
    """How the wind scales spread from a cell to its neighbour at offset (dy, dx)."""
    wy, wx = WINDS[wind]
    if (wy, wx) == (0, 0):
        return 1.0
    cos = (dy * wy + dx * wx) / (np.hypot(dy, dx) * np.hypot(wy, wx))
    return 2.0 if cos > 0.5 else 0.5 if cos < -0.5 else 1.0


def _smooth_fuel(rng: np.random.Generator, height: int, width: int) -> np.ndarray:
    noise = rng.random((height, width))
    for _ in range(2):
        padded = np.pad(noise, 1, mode="edge")
        noise = (
            sum(
                padded[1 + dy : 1 + dy + height, 1 + dx : 1 + dx + width]
                for dy in (-1, 0, 1)
                for dx in (-1, 0, 1)
            )
            / 9.0
        )
    low, high = noise.min(), noise.max()
    return 0.3 + 0.7 * (noise - low) / max(high - low, 1e-9)


def _shift(mask: np.ndarray, dy: int, dx: int) -> np.ndarray:
    """``out[y, x] = mask[y - dy, x - dx]`` with zeros off the edge."""
    height, width = mask.shape
    out = np.zeros_like(mask)
    ys, yd = slice(max(-dy, 0), height - max(dy, 0)), slice(max(dy, 0), height - max(-dy, 0))
    xs, xd = slice(max(-dx, 0), width - max(dx, 0)), slice(max(dx, 0), width - max(-dx, 0))
    out[yd, xd] = mask[ys, xs]
    return out


@dataclass
class Forest:
    """The grid and its timers; ``cells[y, x]`` holds one of the codes above."""

    cells: np.ndarray
    fuel: np.ndarray
    timers: np.ndarray
    wind: str
    humidity: float

    @classmethod
    def generate(
        cls, rng: np.random.Generator, shape: tuple[int, int], wind: str, humidity: float
    ) -> Forest:
        """A forest with no fire yet; vegetation density varies smoothly across the map."""
        height, width = shape
        cells = np.full(shape, FUEL, dtype=np.int8)
        timers = np.zeros(shape, dtype=np.int16)
        return cls(cells, _smooth_fuel(rng, height, width), timers, wind, humidity)

    def ignite(self, rng: np.random.Generator, fires: int, head_start: int) -> None:
        """Start ``fires`` fires at random and let them spread for ``head_start`` ticks.

        The first fires burn ``head_start`` ticks longer so the fire is still alive afterwards.
        """
        height, width = self.shape
        for index in rng.choice(height * width, size=fires, replace=False):
            y, x = divmod(int(index), width)
            self.cells[y, x], self.timers[y, x] = BURNING, BURN_TICKS + head_start
        for _ in range(head_start):
            self.tick(rng)

    @property
    def shape(self) -> tuple[int, int]:
        return int(self.cells.shape[0]), int(self.cells.shape[1])

    def count(self, code: int) -> int:
        return int((self.cells == code).sum())

    def inside(self, y: int, x: int) -> bool:
        height, width = self.shape
        return 0 <= y < height and 0 <= x < width

    def drop_water(self, y: int, x: int) -> int:
        """Wet the 3x3 square around (y, x); return how many fires it put out."""
        area = (slice(max(y - 1, 0), y + 2), slice(max(x - 1, 0), x + 2))
        cells, timers = self.cells[area], self.timers[area]
        wettable = (cells == FUEL) | (cells == BURNING) | (cells == DAMP)
        put_out = int((cells == BURNING).sum())
        cells[wettable], timers[wettable] = DAMP, DAMP_TICKS
        return put_out

    def can_wet(self, y: int, x: int) -> bool:
        area = self.cells[max(y - 1, 0) : y + 2, max(x - 1, 0) : x + 2]
        return bool(np.isin(area, (FUEL, BURNING, DAMP)).any())

    def build_break(self, y: int, x: int) -> None:
        self.cells[y, x], self.timers[y, x] = BREAK, 0

    def tick(self, rng: np.random.Generator) -> tuple[int, int]:
        """Advance one tick; return (cells newly on fire, cells burnt out)."""
        burning = self.cells == BURNING
        spared = np.ones(self.shape)
        humidity = 1.0 - self.humidity
        for dy, dx in NEIGHBOURS:
            chance = SPREAD * humidity * wind_factor(dy, dx, self.wind)
            chance *= DIAGONAL if dy and dx else 1.0
            spared *= 1.0 - _shift(burning, dy, dx) * chance * self.fuel
        ignite = (self.cells == FUEL) & (rng.random(self.shape) < 1.0 - spared)
        burnt = self._age(burning)
        self.cells[ignite], self.timers[ignite] = BURNING, BURN_TICKS
        return int(ignite.sum()), burnt

    def _age(self, burning: np.ndarray) -> int:
        damp = self.cells == DAMP
        self.timers[burning | damp] -= 1
        done_burning = burning & (self.timers <= 0)
        self.cells[done_burning] = ASH
        self.cells[damp & (self.timers <= 0)] = FUEL
        return int(done_burning.sum())
