"""Views as images (PIL), one function per view type, behind GIF export and thumbnails
(dispatched by :mod:`openenv.web.drawing.dispatch`; ``Svg`` needs a browser and has none).
Boards are drawn cell by cell with their colours and glyphs (colour emoji when the system has
an emoji font).
"""

from __future__ import annotations

import functools
from pathlib import Path

from PIL import Image, ImageColor, ImageDraw, ImageFont

from openenv.core.views import Board, Frame

CELL_PX = 48
GRID_LINE = (203, 213, 225)
PAPER = (248, 250, 252)
INK = (15, 23, 42)
_FONT_DIRS = (Path("/usr/share/fonts"), Path("/usr/local/share/fonts"), Path("/Library/Fonts"))
_EMOJI_FONTS = ("NotoColorEmoji.ttf", "AppleColorEmoji.ttc", "seguiemj.ttf")
_TEXT_FONTS = ("DejaVuSans.ttf", "LiberationSans-Regular.ttf", "Arial.ttf")
_MONO_FONTS = ("DejaVuSansMono.ttf", "LiberationMono-Regular.ttf", "Courier New.ttf")
_EMOJI_NATIVE_PX = 109  # Noto Color Emoji is a bitmap font drawn at this size only


def frame_image(frame: Frame) -> Image.Image:
    return Image.fromarray(frame.pixels, "RGB")


def board_image(board: Board, cell_px: int = CELL_PX) -> Image.Image:
    rows, cols = board.shape
    image = Image.new("RGB", (max(cols, 1) * cell_px + 1, max(rows, 1) * cell_px + 1), PAPER)
    draw = ImageDraw.Draw(image)
    for r, row in enumerate(board.rows):
        for c, cell in enumerate(row):
            box = (c * cell_px, r * cell_px, (c + 1) * cell_px, (r + 1) * cell_px)
            draw.rectangle(box, fill=_color(cell.background, PAPER), outline=GRID_LINE)
            if cell.glyph:
                tile = glyph_tile(cell.glyph, _color(cell.color, INK), int(cell_px * 0.72))
                offset = ((cell_px - tile.width) // 2, (cell_px - tile.height) // 2)
                image.paste(tile, (box[0] + offset[0], box[1] + offset[1]), tile)
    return image


def text_image(text: str, size: int = 16) -> Image.Image:
    font = _font(_MONO_FONTS, size)
    lines = text.splitlines() or [""]
    width = max(int(font.getlength(line)) for line in lines) + 2 * size
    image = Image.new("RGB", (max(width, 2 * size), (len(lines) + 1) * int(size * 1.3)), PAPER)
    draw = ImageDraw.Draw(image)
    for i, line in enumerate(lines):
        draw.text((size, size // 2 + i * int(size * 1.3)), line, fill=INK, font=font)
    return image


@functools.lru_cache(maxsize=512)
def glyph_tile(glyph: str, color: tuple[int, int, int], px: int) -> Image.Image:
    """A transparent ``px``×``px`` tile with the glyph centred (colour emoji where possible)."""
    emoji = _font(_EMOJI_FONTS, _EMOJI_NATIVE_PX) if _is_emoji(glyph) else None
    if emoji is not None:
        big = Image.new("RGBA", (_EMOJI_NATIVE_PX * 2, _EMOJI_NATIVE_PX * 2), (0, 0, 0, 0))
        ImageDraw.Draw(big).text((0, 0), glyph, font=emoji, embedded_color=True)
        box = big.getbbox()
        big = big.crop(box) if box else big
        big.thumbnail((px, px), Image.Resampling.LANCZOS)
        return big
    font = _font(_TEXT_FONTS, px) or ImageFont.load_default(px)
    tile = Image.new("RGBA", (px, px), (0, 0, 0, 0))
    draw = ImageDraw.Draw(tile)
    draw.text((px / 2, px / 2), glyph, fill=color, font=font, anchor="mm")
    return tile


def _is_emoji(glyph: str) -> bool:
    return any(ord(ch) >= 0x1F000 or 0x2600 <= ord(ch) <= 0x27BF for ch in glyph)


def _color(value: str | None, default: tuple[int, int, int]) -> tuple[int, int, int]:
    if not value:
        return default
    try:
        return ImageColor.getrgb(value)[:3]
    except ValueError:
        return default


@functools.cache
def _font(names: tuple[str, ...], size: int) -> ImageFont.FreeTypeFont | None:
    for name in names:
        path = _find_font(name)
        if path is None:
            continue
        try:
            return ImageFont.truetype(str(path), size)
        except OSError:  # a bitmap font at an unsupported size, or an unreadable file
            continue
    return ImageFont.load_default(size) if names is not _EMOJI_FONTS else None


@functools.cache
def _find_font(name: str) -> Path | None:
    for folder in _FONT_DIRS:
        if folder.is_dir():
            found = next(folder.rglob(name), None)
            if found is not None:
                return found
    return None
