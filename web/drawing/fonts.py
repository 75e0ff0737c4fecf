"""Which font draws which character, for pictures made on the server (GIF, MP4, PNG,
thumbnails, ``openenv render``): the first font of a chain that has the character, so that no
glyph an environment uses comes out as a ``.notdef`` box ("tofu").

The chain holds the fonts a Debian system (and the Space image) has: DejaVu for text and
symbols, Noto Color Emoji for emoji (Debian's ``fonts-dejavu-core`` and
``fonts-noto-color-emoji``; ``tests/run.sh`` and the Space Dockerfile install both), then other
common fonts where they exist. A character counts as covered by a font when the font draws it
differently from a character no font has (the ``.notdef`` glyph): Pillow alone decides, nothing
else is needed.

Emoji-first characters (pictographs at U+1F000 and above, or followed by the emoji variation
selector U+FE0F) are looked up in the emoji font first, the others in the text fonts first, as a
browser does: ``♟`` is a text glyph, ``🤖`` a picture.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from pathlib import Path

from PIL import Image, ImageDraw, ImageFont

FONT_DIRS = (
    Path("/usr/share/fonts"),
    Path("/usr/local/share/fonts"),
    Path.home() / ".local/share/fonts",
    Path("/Library/Fonts"),
    Path("/System/Library/Fonts"),
)
EMOJI_FILES = ("NotoColorEmoji.ttf", "AppleColorEmoji.ttc", "seguiemj.ttf")
SANS_FILES = (
    "DejaVuSans.ttf", "LiberationSans-Regular.ttf", "NotoSans-Regular.ttf", "FreeSans.ttf",
    "Arial.ttf",
)  # fmt: skip
MONO_FILES = ("DejaVuSansMono.ttf", "LiberationMono-Regular.ttf", "FreeMono.ttf", "Courier New.ttf")
SYMBOL_FILES = (
    "NotoSansSymbols2-Regular.ttf", "NotoSansSymbols-Regular.ttf", "Symbola.ttf",
    "FreeSerif.ttf", "DejaVuSerif.ttf", "NotoSansMath-Regular.ttf",
)  # fmt: skip
EMOJI_NATIVE_PX = 109  # Noto Color Emoji is a bitmap font drawn at this size only
SIGNATURE_PX = 24  # the size characters are drawn at to compare them with .notdef
NOT_A_CHARACTER = "\U0010fffd"  # a private-use code point no font we use draws
SILENT = frozenset("\ufe0e\ufe0f\u200d\u20e3")  # selectors and joiners: part of a sequence


@dataclass(frozen=True)
class FontFile:
    """One font file and whether it is a colour emoji font (drawn at its native size)."""

    path: Path
    emoji: bool = False

    def load(self, size: int) -> ImageFont.FreeTypeFont | None:
        return _load(self.path, EMOJI_NATIVE_PX if self.emoji else size)


@functools.cache
def find_font(name: str) -> Path | None:
    """The first file called ``name`` under the system's font folders."""
    for folder in FONT_DIRS:
        if folder.is_dir():
            found = next(folder.rglob(name), None)
            if found is not None:
                return found
    return None


@functools.cache
def chain(mono: bool = False) -> tuple[FontFile, ...]:
    """The fonts tried for a character, text fonts first (monospaced ones first for text)."""
    names = (MONO_FILES + SANS_FILES) if mono else (SANS_FILES + MONO_FILES)
    fonts = [FontFile(p) for p in map(find_font, names + SYMBOL_FILES) if p is not None]
    fonts += [FontFile(p, emoji=True) for p in map(find_font, EMOJI_FILES) if p is not None]
    return tuple(fonts)


def emoji_first(text: str) -> bool:
    """Whether ``text`` is drawn as a picture when a font has it (see the module doc)."""
    return "\ufe0f" in text or any(ord(ch) >= 0x1F000 for ch in text)


def font_for(text: str, mono: bool = False) -> FontFile | None:
    """The first font of the chain that has every character of ``text`` (``None``: none has;
    the caller draws a stand-in)."""
    fonts = chain(mono)
    if emoji_first(text):
        fonts = tuple(f for f in fonts if f.emoji) + tuple(f for f in fonts if not f.emoji)
    wanted = [ch for ch in text if ch not in SILENT and not ch.isspace()]
    for font in fonts:
        if all(covers(font, ch) for ch in wanted):
            return font
    return None


def covers(font: FontFile, char: str) -> bool:
    """Whether ``font`` draws ``char`` as something other than its ``.notdef`` box."""
    return _signature(font, char) != _signature(font, NOT_A_CHARACTER)


@functools.lru_cache(maxsize=4096)
def _signature(font: FontFile, char: str) -> bytes | None:
    """The pixels of ``char`` drawn alone by ``font`` (``None``: the font cannot be used)."""
    size = SIGNATURE_PX
    loaded = font.load(size)
    if loaded is None:
        return None
    side = 2 * (EMOJI_NATIVE_PX if font.emoji else size)
    canvas = Image.new("RGBA", (side, side), (0, 0, 0, 0))
    try:
        ImageDraw.Draw(canvas).text((0, 0), char, font=loaded, fill="black", embedded_color=True)
    except (OSError, ValueError):  # a font that cannot draw it at all
        return None
    return canvas.tobytes()


@functools.cache
def _load(path: Path, size: int) -> ImageFont.FreeTypeFont | None:
    try:
        return ImageFont.truetype(str(path), size)
    except OSError:  # a bitmap font at an unsupported size, or an unreadable file
        return None
