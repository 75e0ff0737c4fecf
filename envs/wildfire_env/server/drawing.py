"""Paint the forest as an RGB frame: one square of pixels per cell, thin grid lines."""

from __future__ import annotations

import numpy as np

from wildfire_env.server.fire import ASH, BREAK, BURN_TICKS, BURNING, DAMP, Forest

SPARSE_GREEN = np.array([170, 214, 96], dtype=float)
DENSE_GREEN = np.array([24, 110, 38], dtype=float)
FLAMES = {  # by ticks left to burn: fresh fires are bright
    BURN_TICKS: (255, 196, 0),
    2: (255, 110, 0),
    1: (200, 30, 20),
}
COLOURS = {ASH: (70, 70, 70), BREAK: (139, 90, 43), DAMP: (70, 120, 230)}
TARGET_PIXELS = 384


def cell_pixels(height: int, width: int) -> int:
    """Side of one cell in pixels: the frame is about TARGET_PIXELS wide, 8..24 px a cell."""
    return int(min(24, max(8, TARGET_PIXELS // max(height, width))))


def colour_grid(forest: Forest) -> np.ndarray:
    """One RGB colour per cell (height x width x 3, uint8)."""
    cells = forest.cells
    fuel = forest.fuel[..., None]
    # fuel is shaded by its density; the other codes are painted over it
    rgb = SPARSE_GREEN + (DENSE_GREEN - SPARSE_GREEN) * (fuel - 0.3) / 0.7
    for code, colour in COLOURS.items():
        rgb[cells == code] = colour
    ticks_left = np.clip(forest.timers, 1, BURN_TICKS)
    for ticks, colour in FLAMES.items():
        rgb[(cells == BURNING) & (ticks_left == ticks)] = colour
    return rgb.astype(np.uint8)


def frame(forest: Forest) -> np.ndarray:
    """The forest scaled up to an image, with a darker line between cells."""
    px = cell_pixels(*forest.shape)
    image = np.kron(colour_grid(forest), np.ones((px, px, 1), dtype=np.uint8))
    image[::px, :, :] = (image[::px, :, :] * 0.8).astype(np.uint8)
    image[:, ::px, :] = (image[:, ::px, :] * 0.8).astype(np.uint8)
    return image
