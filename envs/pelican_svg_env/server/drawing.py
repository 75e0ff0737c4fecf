"""Pictures: the submitted drawing written anew from its allowed parts, the stage around it,
and the reference drawing of each task (what the validator's oracle submits).

The stage never inlines the submitted text: it is parsed (:mod:`.source`), gated, and only
allowed elements and attributes are written back out by ElementTree (which escapes every
value); the playground's own SVG sanitizer then runs over the whole stage as over any ``Svg``.
"""

from __future__ import annotations

import textwrap
import xml.etree.ElementTree as ET
from html import escape

from pelican_svg_env.server.source import local
from pelican_svg_env.server.tasks import Task

ELEMENTS = {
    "svg", "g", "defs", "symbol", "use", "rect", "circle", "ellipse", "line", "polyline",
    "polygon", "path", "lineargradient", "radialgradient", "stop", "clippath", "mask",
    "pattern", "title", "desc",
}  # fmt: skip
ATTRIBUTES = {
    "id", "x", "y", "x1", "y1", "x2", "y2", "cx", "cy", "r", "rx", "ry", "width", "height",
    "d", "points", "transform", "viewbox", "preserveaspectratio", "fill", "fill-opacity",
    "fill-rule", "stroke", "stroke-width", "stroke-opacity", "stroke-linecap",
    "stroke-linejoin", "stroke-dasharray", "opacity", "offset", "stop-color", "stop-opacity",
    "gradientunits", "gradienttransform", "fx", "fy", "clip-path", "clip-rule", "mask",
    "patternunits", "style",
}  # fmt: skip
SPELLING = {name.lower(): name for name in (
    "viewBox", "preserveAspectRatio", "linearGradient", "radialGradient", "clipPath",
    "gradientUnits", "gradientTransform", "patternUnits",
)}  # fmt: skip
SVG_NS = "http://www.w3.org/2000/svg"
STAGE_W, STAGE_H = 720, 440
PANEL = (10, 48, 380, 382)  # x y w h of the drawing on the stage
MAX_ROWS = 17
CARD_X, CARD_Y, ROW = 405, 66, 21
GREEN, RED, GREY, INK = "#15803d", "#b91c1c", "#64748b", "#0f172a"


def clean_children(root: ET.Element) -> str:
    """The allowed descendants of a gated drawing's root, as markup (no root element)."""
    return "".join(ET.tostring(child, encoding="unicode") for child in _clean(root))


def _clean(element: ET.Element) -> ET.Element:
    tag = local(element.tag)
    out = ET.Element(SPELLING.get(tag, tag))
    for name, value in element.attrib.items():
        key = local(name)
        if key == "href" and value.strip().startswith("#"):
            out.set("href", value.strip())
        elif key in ATTRIBUTES:
            out.set(SPELLING.get(key, key), value[:10_000])
    for child in element:
        if local(child.tag) in ELEMENTS:
            out.append(_clean(child))
    return out


def standalone(root: ET.Element, canvas: tuple[float, float, float, float]) -> str:
    """The clean drawing as a document of its own (what the judge's renderer draws)."""
    box = " ".join(f"{v:g}" for v in canvas)
    return (
        f'<svg xmlns="{SVG_NS}" viewBox="{box}" width="{canvas[2]:g}" height="{canvas[3]:g}">'
        f"{clean_children(root)}</svg>"
    )


def stage(
    task: Task,
    drawing: tuple[str, tuple[float, float, float, float]] | None,
    lines: list[tuple[str, str]],
    banner: str,
) -> str:
    """The stage: the task on top, the drawing (or an empty frame) left, the scorecard right.

    ``lines``: (colour, text) rows of the scorecard; ``drawing``: clean children and canvas.
    """
    x, y, w, h = PANEL
    parts = [
        f'<svg xmlns="{SVG_NS}" viewBox="0 0 {STAGE_W} {STAGE_H}" width="{STAGE_W}" '
        f'height="{STAGE_H}" role="img" aria-label="{escape(task.prompt)}">',
        f'<rect width="{STAGE_W}" height="{STAGE_H}" fill="#f8fafc"/>',
        f'<text x="10" y="32" font-size="22" font-weight="bold" fill="{INK}" '
        f'font-family="sans-serif">Draw {escape(task.prompt)}</text>',
        f'<rect x="{x}" y="{y}" width="{w}" height="{h}" fill="#ffffff" stroke="#cbd5e1"/>',
    ]
    if drawing is None:
        parts.append(
            f'<text x="{x + w / 2}" y="{y + h / 2}" text-anchor="middle" font-size="16" '
            f'fill="{GREY}" font-family="sans-serif">{escape(banner)}</text>'
        )
    else:
        children, canvas = drawing
        box = " ".join(f"{v:g}" for v in canvas)
        parts.append(
            f'<svg x="{x}" y="{y}" width="{w}" height="{h}" viewBox="{box}" '
            f'preserveAspectRatio="xMidYMid meet">{children}</svg>'
        )
    rows = [(colour, part) for colour, text in lines for part in _wrapped(text)]
    for i, (colour, text) in enumerate(rows[:MAX_ROWS]):
        weight = ' font-weight="bold"' if colour == INK else ""
        parts.append(
            f'<text x="{CARD_X}" y="{CARD_Y + ROW * i}" font-size="16" fill="{colour}"{weight} '
            f'font-family="DejaVu Sans, sans-serif">{escape(text)}</text>'
        )
    parts.append("</svg>")
    return "".join(parts)


def _wrapped(text: str, width: int = 34, most: int = 3) -> list[str]:
    """``text`` in lines of at most ``width`` characters (at most ``most`` lines, then …)."""
    lines = textwrap.wrap(text, width, subsequent_indent="  ") or [""]
    return [*lines[: most - 1], lines[most - 1][: width - 1] + "…"] if len(lines) > most else lines


# -- the reference drawings -----------------------------------------------------------------

PALETTES = {  # body, accent (beak, ears), detail
    "pelican": ("#f5f5f0", "#f2a900", "#555555"),
    "flamingo": ("#f48fb1", "#222222", "#c2185b"),
    "penguin": ("#222222", "#ff9800", "#ffffff"),
    "fox": ("#e07020", "#ffffff", "#3e2723"),
    "tortoise": ("#5b8c3a", "#9ccc65", "#33691e"),
}
WHEELS = {  # vehicle: (wheel centres x, radius)
    "bicycle": ((110, 290), 45),
    "unicycle": ((200,), 45),
    "tricycle": ((90, 200, 310), 36),
    "motorcycle": ((110, 290), 45),
    "scooter": ((110, 290), 14),
    "skateboard": ((130, 270), 10),
}
GROUND = 262


def reference_svg(task: Task) -> str:
    """A plain drawing of ``task`` that passes every geometry check (the oracle's answer)."""
    body, accent, detail = PALETTES[task.subject]
    xs, r = WHEELS[task.vehicle.name]
    cy = GROUND - r
    top = cy - r
    shapes = [f'<rect x="0" y="{GROUND}" width="400" height="38" fill="#a5d6a7"/>']
    for x in xs:
        shapes.append(
            f'<circle cx="{x}" cy="{cy}" r="{r}" fill="none" stroke="#37474f" stroke-width="6"/>'
        )
        shapes.append(f'<circle cx="{x}" cy="{cy}" r="4" fill="#37474f"/>')
    shapes += _frame(task.vehicle.name, xs, cy, r)
    seat = top - 10
    shapes += [
        f'<ellipse cx="200" cy="{seat - 50}" rx="62" ry="40" fill="{body}" stroke="{detail}" '
        'stroke-width="3"/>',
        f'<ellipse cx="185" cy="{seat - 55}" rx="34" ry="18" fill="{detail}" opacity="0.5"/>',
        f'<circle cx="252" cy="{seat - 118}" r="26" fill="{body}" stroke="{detail}" '
        'stroke-width="3"/>',
        f'<circle cx="260" cy="{seat - 124}" r="4" fill="#000000"/>',
        f'<polygon points="274,{seat - 120} 330,{seat - 108} 274,{seat - 102}" fill="{accent}"/>',
        f'<line x1="235" y1="{seat - 95}" x2="228" y2="{seat - 75}" stroke="{body}" '
        'stroke-width="14"/>',
        f'<line x1="190" y1="{seat - 12}" x2="{xs[-1] - 10}" y2="{cy}" stroke="{accent}" '
        'stroke-width="5"/>',
    ]
    return (
        '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 400 300" width="400" '
        'height="300">' + "".join(shapes) + "</svg>"
    )


def _frame(vehicle: str, xs: tuple[int, ...], cy: int, r: int) -> list[str]:
    stroke = 'stroke="#c62828" stroke-width="6" stroke-linecap="round"'
    if vehicle in ("skateboard", "scooter"):
        deck = (
            f'<rect x="{xs[0] - 30}" y="{cy - r - 12}" width="{xs[-1] - xs[0] + 60}" '
            'height="10" rx="5" fill="#8d6e63"/>'
        )
        if vehicle == "scooter":
            return [
                deck,
                f'<line x1="{xs[-1]}" y1="{cy}" x2="{xs[-1] - 10}" y2="{cy - 150}" {stroke}/>',
            ]
        return [deck]
    seat_y = cy - r - 10
    lines = [f'<line x1="{x}" y1="{cy}" x2="200" y2="{seat_y}" {stroke}/>' for x in xs]
    return [*lines, f'<rect x="180" y="{seat_y - 6}" width="40" height="8" fill="#263238"/>']
