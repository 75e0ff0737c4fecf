"""Layer 2, deterministic geometry: the shapes of the parsed drawing, in canvas coordinates,
checked against the task (wheels for the vehicle, a rider above them, colour, composition).

Each shape's bounding box is computed through its ``transform`` and its groups' (translate,
scale, rotate, skew, matrix). A path's box covers its end and control points, which contains
the curve. Each check passes or fails with the reason; the layer's score is the share passed.
"""

from __future__ import annotations

import math
import re
import xml.etree.ElementTree as ET
from dataclasses import dataclass

from pelican_svg_env.server.source import local
from pelican_svg_env.server.tasks import Task

Matrix = tuple[float, float, float, float, float, float]  # a b c d e f, as SVG writes it
Box = tuple[float, float, float, float]  # a canvas: x y width height
IDENTITY: Matrix = (1.0, 0.0, 0.0, 1.0, 0.0, 0.0)
SHAPES = {"rect", "circle", "ellipse", "line", "polyline", "polygon", "path"}
SKIPPED = {
    "defs",
    "clippath",
    "mask",
    "pattern",
    "marker",
    "symbol",
    "lineargradient",
    "radialgradient",
    "title",
    "desc",
    "metadata",
    "style",
}
_NUMBER = re.compile(r"[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?")
_TRANSFORM = re.compile(r"(matrix|translate|scale|rotate|skewX|skewY)\s*\(([^)]*)\)")
_PATH_TOKEN = re.compile(r"[MmLlHhVvCcSsQqTtAaZz]|[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?")
_PATH_ARITY = {"m": 2, "l": 2, "h": 1, "v": 1, "c": 6, "s": 4, "q": 4, "t": 2, "a": 7, "z": 0}
DEFAULT_CANVAS = (0.0, 0.0, 300.0, 150.0)  # a browser's size for an SVG that says nothing


@dataclass(frozen=True)
class Shape:
    """One drawn element: its kind, bounding box in canvas units and paint."""

    kind: str
    box: tuple[float, float, float, float]  # x0 y0 x1 y1
    round: bool  # a circle, or an ellipse close to one
    paints: tuple[str, ...]

    @property
    def width(self) -> float:
        return self.box[2] - self.box[0]

    @property
    def height(self) -> float:
        return self.box[3] - self.box[1]


@dataclass(frozen=True)
class Check:
    """One geometry check's verdict."""

    name: str
    passed: bool
    detail: str


def numbers(text: str | None) -> list[float]:
    return [float(n) for n in _NUMBER.findall(text or "")]


def canvas_of(root: ET.Element) -> tuple[float, float, float, float]:
    """The drawing's viewBox (x, y, width, height), else its width and height."""
    box = numbers(root.get("viewBox"))
    if len(box) == 4 and box[2] > 0 and box[3] > 0:
        return box[0], box[1], box[2], box[3]
    size = numbers(root.get("width"))[:1] + numbers(root.get("height"))[:1]
    if len(size) == 2 and size[0] > 0 and size[1] > 0:
        return 0.0, 0.0, size[0], size[1]
    return DEFAULT_CANVAS


def multiply(m: Matrix, n: Matrix) -> Matrix:
    a, b, c, d, e, f = m
    a2, b2, c2, d2, e2, f2 = n
    return (
        a * a2 + c * b2,
        b * a2 + d * b2,
        a * c2 + c * d2,
        b * c2 + d * d2,
        a * e2 + c * f2 + e,
        b * e2 + d * f2 + f,
    )


def parse_transform(text: str | None) -> Matrix:
    """The matrix of an SVG ``transform`` list (unknown parts are ignored)."""
    m = IDENTITY
    for name, args in _TRANSFORM.findall(text or ""):
        v = numbers(args)
        m = multiply(m, _one(name, v))
    return m


def _one(name: str, v: list[float]) -> Matrix:
    if name == "matrix" and len(v) == 6:
        return (v[0], v[1], v[2], v[3], v[4], v[5])
    if name == "translate" and v:
        return (1, 0, 0, 1, v[0], v[1] if len(v) > 1 else 0)
    if name == "scale" and v:
        return (v[0], 0, 0, v[1] if len(v) > 1 else v[0], 0, 0)
    if name == "rotate" and v:
        r = math.radians(v[0])
        rot = (math.cos(r), math.sin(r), -math.sin(r), math.cos(r), 0.0, 0.0)
        if len(v) == 3:
            return multiply(multiply((1, 0, 0, 1, v[1], v[2]), rot), (1, 0, 0, 1, -v[1], -v[2]))
        return rot
    if name in ("skewX", "skewY") and v:
        t = math.tan(math.radians(v[0]))
        return (1, 0, t, 1, 0, 0) if name == "skewX" else (1, t, 0, 1, 0, 0)
    return IDENTITY


def shapes_of(root: ET.Element) -> list[Shape]:
    """Every drawn shape of the document, in canvas coordinates."""
    found: list[Shape] = []
    _walk(root, IDENTITY, {}, found)
    return found


def _walk(element: ET.Element, m: Matrix, paint: dict[str, str], out: list[Shape]) -> None:
    tag = local(element.tag)
    if tag in SKIPPED:
        return
    m = multiply(m, parse_transform(element.get("transform")))
    paint = {**paint, **_paint(element)}
    if tag in SHAPES:
        shape = _shape(tag, element, m, paint)
        if shape is not None:
            out.append(shape)
    for child in element:
        _walk(child, m, paint, out)


def _paint(element: ET.Element) -> dict[str, str]:
    found = {k: element.get(k, "") for k in ("fill", "stroke") if element.get(k)}
    for declaration in (element.get("style") or "").split(";"):
        key, _, value = declaration.partition(":")
        if key.strip() in ("fill", "stroke") and value.strip():
            found[key.strip()] = value.strip()
    return found


def _shape(tag: str, e: ET.Element, m: Matrix, paint: dict[str, str]) -> Shape | None:
    points, round_ = _points(tag, e)
    if not points:
        return None
    moved = [(m[0] * x + m[2] * y + m[4], m[1] * x + m[3] * y + m[5]) for x, y in points]
    xs, ys = [p[0] for p in moved], [p[1] for p in moved]
    box = (min(xs), min(ys), max(xs), max(ys))
    square = abs((box[2] - box[0]) - (box[3] - box[1])) <= 0.25 * max(box[2] - box[0], 1e-9)
    fill = paint.get("fill", "black")  # SVG's default fill
    paints = tuple(
        sorted(
            {p.lower() for p in (fill, paint.get("stroke", "none")) if p} - {"none", "transparent"}
        )
    )
    return Shape(tag, box, round_ and square, paints)


def _points(tag: str, e: ET.Element) -> tuple[list[tuple[float, float]], bool]:
    def num(name: str) -> float:
        found = numbers(e.get(name))
        return found[0] if found else 0.0

    if tag in ("circle", "ellipse"):
        cx, cy = num("cx"), num("cy")
        rx = num("r") if tag == "circle" else num("rx")
        ry = num("r") if tag == "circle" else num("ry")
        if rx <= 0 or ry <= 0:
            return [], False
        return [
            (cx - rx, cy - ry),
            (cx + rx, cy - ry),
            (cx - rx, cy + ry),
            (cx + rx, cy + ry),
        ], True
    if tag == "rect":
        x, y, w, h = num("x"), num("y"), num("width"), num("height")
        if w <= 0 or h <= 0:
            return [], False
        return [(x, y), (x + w, y), (x, y + h), (x + w, y + h)], False
    if tag == "line":
        return [(num("x1"), num("y1")), (num("x2"), num("y2"))], False
    if tag in ("polyline", "polygon"):
        v = numbers(e.get("points"))
        return list(zip(v[0::2], v[1::2], strict=False)), False
    return _path_points(e.get("d") or ""), False


def _path_points(d: str) -> list[tuple[float, float]]:
    """End and control points of a path (absolute), enough for a bounding box."""
    points: list[tuple[float, float]] = []
    x = y = sx = sy = 0.0
    command = ""
    args: list[float] = []
    for token in [*_PATH_TOKEN.findall(d), "Z"]:
        if token.isalpha():
            command, args = token, []
            if command in "Zz":
                x, y = sx, sy
            continue
        if not command or command in "Zz":
            continue
        args.append(float(token))
        arity = _PATH_ARITY[command.lower()]
        if len(args) < arity:
            continue
        x, y, pts = _segment(command, args, x, y)
        points += pts
        if command in "Mm":
            sx, sy = x, y
            command = "l" if command == "m" else "L"  # later pairs are lines
        args = []
    return points


def _segment(cmd: str, a: list[float], x: float, y: float):
    rel = cmd.islower()
    c = cmd.lower()
    if c == "h":
        x = x + a[0] if rel else a[0]
        return x, y, [(x, y)]
    if c == "v":
        y = y + a[0] if rel else a[0]
        return x, y, [(x, y)]
    if c == "a":
        nx, ny = (x + a[5], y + a[6]) if rel else (a[5], a[6])
        r = max(abs(a[0]), abs(a[1]))
        mx, my = (x + nx) / 2, (y + ny) / 2
        return nx, ny, [(nx, ny), (mx - r, my - r), (mx + r, my + r)]
    pts = [
        ((x + a[i]) if rel else a[i], (y + a[i + 1]) if rel else a[i + 1])
        for i in range(0, len(a), 2)
    ]
    return pts[-1][0], pts[-1][1], pts


# -- the checks ----------------------------------------------------------------------------


def wheels(shapes: list[Shape], task: Task, canvas: Box) -> list[Shape]:
    """Round shapes in the lower half of the drawing, big enough to be the task's wheels,
    biggest first, one per place (a hub inside a tyre is the same wheel)."""
    if not shapes:
        return []
    least = task.vehicle.min_radius * min(canvas[2], canvas[3]) * 2
    middle = (min(s.box[1] for s in shapes) + max(s.box[3] for s in shapes)) / 2
    low = [s for s in shapes if s.round and s.width >= least and s.box[1] + s.height / 2 >= middle]
    round_ = sorted(low, key=lambda s: -s.width)
    kept: list[Shape] = []
    for s in round_:  # a tyre and its hub are one wheel: keep the outer one
        centre = ((s.box[0] + s.box[2]) / 2, (s.box[1] + s.box[3]) / 2)
        if not any(
            k.box[0] <= centre[0] <= k.box[2] and k.box[1] <= centre[1] <= k.box[3] for k in kept
        ):
            kept.append(s)
    return kept


def checks(shapes: list[Shape], task: Task, canvas: Box) -> list[Check]:
    """The geometry layer's verdicts for ``task`` (module doc)."""
    return [
        _detail(shapes),
        _in_canvas(shapes, canvas),
        _wheels(shapes, task, canvas),
        _rider(shapes, task, canvas),
        _colours(shapes),
        _composition(shapes, canvas),
    ]


def _detail(shapes: list[Shape]) -> Check:
    n = len(shapes)
    return Check("detail", n >= 8, f"{n} shapes (at least 8)")


def _in_canvas(shapes: list[Shape], canvas: tuple[float, float, float, float]) -> Check:
    x, y, w, h = canvas
    inside = [
        s
        for s in shapes
        if s.box[0] >= x - 0.05 * w
        and s.box[2] <= x + 1.05 * w
        and s.box[1] >= y - 0.05 * h
        and s.box[3] <= y + 1.05 * h
    ]
    ok = bool(shapes) and len(inside) >= 0.9 * len(shapes)
    return Check("in_canvas", ok, f"{len(inside)} of {len(shapes)} shapes inside")


def _wheels(shapes: list[Shape], task: Task, canvas) -> Check:
    found = wheels(shapes, task, canvas)
    need = task.vehicle.wheels
    ok = len(found) >= need
    return Check("wheels", ok, f"{len(found)} of the {task.vehicle.name}'s {need}")


def _rider(shapes: list[Shape], task: Task, canvas) -> Check:
    found = wheels(shapes, task, canvas)
    if not found:
        return Check("rider_above", False, "no wheels to ride on")
    top = min(w.box[1] for w in found)
    rest = [s for s in shapes if s not in found and s.box[3] < top + 0.5 * found[0].height]
    above = [s for s in rest if (s.box[1] + s.box[3]) / 2 < top]
    height = top - min((s.box[1] for s in above), default=top)
    ok = len(above) >= 3 and height >= 0.2 * canvas[3]
    return Check(
        "rider_above",
        ok,
        f"{len(above)} shapes up to {height / canvas[3]:.0%}",
    )


def _colours(shapes: list[Shape]) -> Check:
    paints = {p for s in shapes for p in s.paints}
    return Check("colours", len(paints) >= 3, f"{len(paints)} (at least 3)")


def _composition(shapes: list[Shape], canvas) -> Check:
    if not shapes:
        return Check("composition", False, "nothing drawn")
    x0 = min(s.box[0] for s in shapes)
    x1 = max(s.box[2] for s in shapes)
    y0 = min(s.box[1] for s in shapes)
    y1 = max(s.box[3] for s in shapes)
    wide, tall = (x1 - x0) / canvas[2], (y1 - y0) / canvas[3]
    ok = wide >= 0.4 and tall >= 0.4
    return Check("composition", ok, f"{wide:.0%} × {tall:.0%} (40% each)")
