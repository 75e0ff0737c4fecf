"""Pictures made on the server draw every glyph an environment uses: no character comes out as
the font's ``.notdef`` box ("tofu"), emoji come out in colour (tests/run.sh installs Debian's
fonts-noto-color-emoji and fonts-dejavu-core, as the Space image does)."""

from __future__ import annotations

import unicodedata
from pathlib import Path

import numpy as np
import pytest
from PIL import Image, ImageDraw

from openenv.core.views import Board, Cell, Text
from openenv.web.drawing import fonts, to_image
from openenv.web.drawing.raster import glyph_tile

ROOT = Path(__file__).resolve().parent.parent
SOURCES = [
    *ROOT.glob("envs/*/server/**/*.py"),
    *ROOT.glob("envs/*/*.py"),
    *ROOT.glob("web/remote/rules/*.py"),
]


def drawable(ch: str) -> bool:
    """A character an env may put on a board or in a text (not a control or a space)."""
    return ord(ch) > 0x7F and unicodedata.category(ch)[0] in "LNPS"


def env_glyphs() -> list[str]:
    found: set[str] = set()
    for source in SOURCES:
        found.update(ch for ch in source.read_text(encoding="utf-8") if drawable(ch))
    return sorted(found)


def tofu(px: int = 40) -> bytes:
    """What a character no font has looks like, drawn as a glyph tile is."""
    font = fonts.chain()[0].load(px)
    tile = Image.new("RGBA", (px, px), (0, 0, 0, 0))
    ImageDraw.Draw(tile).text((px / 2, px / 2), fonts.NOT_A_CHARACTER, font=font, anchor="mm")
    return tile.tobytes()


def test_the_fonts_are_installed():
    names = {f.path.name for f in fonts.chain()}
    assert "DejaVuSans.ttf" in names and "NotoColorEmoji.ttf" in names, (
        "install Debian's fonts-dejavu-core and fonts-noto-color-emoji (tests/run.sh does)"
    )


@pytest.mark.parametrize("glyph", env_glyphs())
def test_every_glyph_an_env_uses_has_a_font(glyph):
    found = fonts.font_for(glyph)
    assert found is not None, f"{glyph!r} ({unicodedata.name(glyph, '?')}) would be tofu"
    assert fonts.covers(found, glyph)


def test_a_missing_character_is_told_apart_from_a_drawn_one():
    assert fonts.font_for(fonts.NOT_A_CHARACTER) is None
    assert glyph_tile("♞", (0, 0, 0), 40).tobytes() != tofu()


@pytest.mark.parametrize("glyph", ["🤖", "🔴", "🟡", "🟩", "🍎", "🔥", "💧", "🧱"])
def test_emoji_pieces_are_drawn_in_colour_not_as_boxes(glyph):
    tile = np.asarray(glyph_tile(glyph, (0, 0, 0), 40).convert("RGBA")).astype(int)
    seen = tile[tile[:, :, 3] > 128][:, :3]
    assert len(seen) > 100  # something fills the square
    assert (seen.max(axis=1) - seen.min(axis=1)).max() > 60  # in colour: no grey box


def test_boards_and_text_draw_their_glyphs():
    board = Board([[Cell("🤖"), Cell("♔"), Cell("2048")]])
    image = np.asarray(to_image(board, cell_px=48)).astype(int)
    for col in range(3):
        square = image[4:44, col * 48 + 4 : col * 48 + 44]
        assert (square != square[0, 0]).any(), f"square {col} is empty"
    text = np.asarray(to_image(Text("win 🏆 ✓"))).astype(int)
    assert (text.max(axis=2) - text.min(axis=2)).max() > 60  # the trophy in colour


def test_without_an_emoji_font_coloured_pieces_are_drawn_as_shapes(monkeypatch):
    text_only = tuple(f for f in fonts.chain() if not f.emoji)
    monkeypatch.setattr(fonts, "chain", lambda mono=False: text_only)
    glyph_tile.cache_clear()
    try:
        for glyph, rgb in (("🔴", (221, 46, 68)), ("🟡", (253, 203, 88)), ("🟩", (120, 177, 89))):
            tile = glyph_tile(glyph, (0, 0, 0), 40).convert("RGBA")
            assert tile.getpixel((20, 20)) == (*rgb, 255), glyph  # the piece, in its colour
    finally:
        glyph_tile.cache_clear()
