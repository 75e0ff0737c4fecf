"""Views as images (PIL), one function per view type, behind GIF export and thumbnails
(dispatched by :mod:`openenv.web.drawing.dispatch`; SVG through resvg).
Boards are drawn cell by cell with their colours and glyphs, and text line by line, each
character in a font that has it (:mod:`~openenv.web.drawing.fonts`: colour emoji in colour).
"""

from __future__ import annotations

import functools
import io
import re

from PIL import Image, ImageColor, ImageDraw, ImageFont

from openenv.core.views import Board, Frame
from openenv.web.drawing import fonts
from openenv.web.drawing.svg import sanitize_svg

CELL_PX = 48
GRID_LINE = (203, 213, 225)
PAPER = (248, 250, 252)
INK = (15, 23, 42)
MAX_TEXT_LINES = 400  # of a text drawn as an image (the rest is said to be cut)
MAX_TEXT_COLUMNS = 240
SVG_WIDTH = 480  # an SVG that says no width of its own is drawn this wide
SVG_MAX_SIDE = 2048


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
    """Monospaced ``text`` on paper, each character in a font that has it (emoji in colour)."""
    lines = [line[:MAX_TEXT_COLUMNS] for line in (text.splitlines() or [""])]
    if len(lines) > MAX_TEXT_LINES:
        lines = [*lines[:MAX_TEXT_LINES], "… (cut)"]
    step = int(size * 1.3)
    runs = [list(_runs(line)) for line in lines]
    width = max(sum(_run_width(font, part, size) for font, part in line) for line in runs)
    image = Image.new("RGB", (max(width + 2 * size, 2 * size), (len(lines) + 1) * step), PAPER)
    for i, line in enumerate(runs):
        x, top = size, size // 2 + i * step
        for font, part in line:
            x += _draw_run(image, (x, top), font, part, size)
    return image


@functools.lru_cache(maxsize=512)
def glyph_tile(glyph: str, color: tuple[int, int, int], px: int) -> Image.Image:
    """A transparent tile with the glyph centred, at most ``px``×``px``, drawn by a font that
    has it (:mod:`~openenv.web.drawing.fonts`; colour emoji in colour)."""
    found = fonts.font_for(glyph)
    if found is not None and found.emoji:
        return _emoji_tile(found, glyph, px)
    if found is None and glyph.strip("\ufe0f") in SHAPES:  # no emoji font here: draw it
        return _shape_tile(glyph.strip("\ufe0f"), px)
    tile = Image.new("RGBA", (px, px), (0, 0, 0, 0))
    draw = ImageDraw.Draw(tile)
    size = px
    font = _text_font(found, size)
    while size > 6 and draw.textlength(glyph, font=font) > px:  # "2048" fits its square
        size = int(size * 0.85)
        font = _text_font(found, size)
    draw.text((px / 2, px / 2), glyph, fill=color, font=font, anchor="mm")
    return tile


# Coloured discs and squares, the pieces games draw most: drawn as shapes where no font has them.
_COLOURS = {
    "red": "#DD2E44", "orange": "#F4900C", "yellow": "#FDCB58", "green": "#78B159",
    "blue": "#55ACEE", "purple": "#AA8ED6", "brown": "#C1694F", "black": "#31373D",
    "white": "#E6E7E8",
}  # fmt: skip
SHAPES: dict[str, tuple[str, str]] = {
    **dict(zip("🔴🟠🟡🟢🔵🟣🟤⚫⚪", (("disc", c) for c in _COLOURS.values()), strict=True)),
    **dict(zip("🟥🟧🟨🟩🟦🟪🟫⬛⬜", (("square", c) for c in _COLOURS.values()), strict=True)),
}


def _shape_tile(glyph: str, px: int) -> Image.Image:
    shape, colour = SHAPES[glyph]
    tile = Image.new("RGBA", (px, px), (0, 0, 0, 0))
    draw = ImageDraw.Draw(tile)
    box = (px // 10, px // 10, px - px // 10, px - px // 10)
    if shape == "disc":
        draw.ellipse(box, fill=colour, outline=INK)
    else:
        draw.rounded_rectangle(box, radius=max(1, px // 10), fill=colour)
    return tile


def _emoji_tile(found: fonts.FontFile, glyph: str, px: int) -> Image.Image:
    native = fonts.EMOJI_NATIVE_PX
    big = Image.new("RGBA", (native * 2 * max(1, len(glyph)), native * 2), (0, 0, 0, 0))
    ImageDraw.Draw(big).text((0, 0), glyph, font=found.load(native), embedded_color=True)
    box = big.getbbox()
    big = big.crop(box) if box else big
    big.thumbnail((px, px), Image.Resampling.LANCZOS)
    return big


def _text_font(found: fonts.FontFile | None, size: int) -> ImageFont.FreeTypeFont:
    """``found`` at ``size``; without one, the first text font (or Pillow's own)."""
    if found is None:
        found = next((f for f in fonts.chain() if not f.emoji), None)
    loaded = found.load(size) if found is not None else None
    return loaded or ImageFont.load_default(size)


def _clusters(line: str) -> list[str]:
    """``line`` in user-perceived characters: selectors, joiners and what a joiner joins stay
    with the character before them (``❤️``, ``👩‍💻``)."""
    out: list[str] = []
    for ch in line:
        if out and (ch in fonts.SILENT or out[-1].endswith("\u200d")):
            out[-1] += ch
        else:
            out.append(ch)
    return out


def _runs(line: str):
    """(font, text) runs of ``line``, each drawn by one font (``None``: no font has it)."""
    current: fonts.FontFile | None = None
    part = ""
    for cluster in _clusters(line):
        font = fonts.font_for(cluster, mono=True) if cluster.strip() else current
        if part and font != current:
            yield current, part
            part = ""
        current = font
        part += cluster
    if part:
        yield current, part


def _run_width(font: fonts.FontFile | None, part: str, size: int) -> int:
    if font is not None and font.emoji:
        return len(_clusters(part)) * size
    return int(_text_font(font, size).getlength(part))


def _draw_run(
    image: Image.Image, xy: tuple[int, int], font: fonts.FontFile | None, part: str, size: int
) -> int:
    """Draw one run at ``xy``; its width."""
    if font is not None and font.emoji:
        x, y = xy
        for cluster in _clusters(part):
            tile = _emoji_tile(font, cluster, size)
            image.paste(tile, (x + (size - tile.width) // 2, y + (size - tile.height) // 2), tile)
            x += size
        return x - xy[0]
    loaded = _text_font(font, size)
    ImageDraw.Draw(image).text(xy, part, fill=INK, font=loaded)
    return int(loaded.getlength(part))


def _color(value: str | None, default: tuple[int, int, int]) -> tuple[int, int, int]:
    if not value:
        return default
    try:
        return ImageColor.getrgb(value)[:3]
    except ValueError:
        return default


def svg_image(markup: str, width: int | None = None) -> Image.Image | None:
    """The SVG rasterised on paper (by resvg, ``resvg-py``), after the same sanitizer as the
    page (nothing outside the drawing is read); ``None`` when resvg is missing or the markup is
    no SVG. ``width``: the SVG's own width within bounds, else :data:`SVG_WIDTH`."""
    try:
        import resvg_py
    except ModuleNotFoundError:
        return None
    clean = sanitize_svg(markup)
    own, ratio = _svg_size(clean)
    width = min(max(width or own or SVG_WIDTH, 16), SVG_MAX_SIDE)
    size = {"width": width} if width * ratio <= SVG_MAX_SIDE else {"height": SVG_MAX_SIDE}
    try:
        png = resvg_py.svg_to_bytes(svg_string=clean, background=_hex(PAPER), **size)
    except ValueError:  # no root, a broken document, nothing to draw
        return None
    with Image.open(io.BytesIO(bytes(png))) as image:
        return image.convert("RGB")


_ROOT = re.compile(r"<svg\b[^>]*>", re.IGNORECASE)
_NUMBER = r"\s*=\s*\"\s*([0-9.]+)(?:px)?\s*\""


def _svg_size(markup: str) -> tuple[int | None, float]:
    """The root's width in pixels (if it says) and its height / width (1 when unknown)."""
    root = _ROOT.search(markup)
    tag = root.group() if root else ""
    width = re.search(r"\swidth" + _NUMBER, tag)
    height = re.search(r"\sheight" + _NUMBER, tag)
    box = re.search(r'viewBox\s*=\s*"\s*[-0-9.]+[\s,]+[-0-9.]+[\s,]+([0-9.]+)[\s,]+([0-9.]+)', tag)
    try:
        if width and height:
            w, h = float(width.group(1)), float(height.group(1))
        elif box:
            w, h = float(box.group(1)), float(box.group(2))
        else:
            return None, 1.0
        own = int(float(width.group(1))) if width else None
        return own, (h / w if w > 0 and h > 0 else 1.0)
    except ValueError:
        return None, 1.0


def _hex(color: tuple[int, int, int]) -> str:
    return "#" + "".join(f"{c:02x}" for c in color)
