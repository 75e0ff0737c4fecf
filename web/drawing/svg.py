"""An allow-list sanitizer for the SVG an environment draws (``Svg`` views), before the page
inlines it.

An environment's SVG may carry a visitor's text (a name, a chat line) or come from a third-party
package, so it is parsed and written anew from what is allowed, never filtered by patterns:

- elements: shapes, text, groups, gradients, patterns, clip paths, masks, markers, ``use``,
  ``image``, titles and descriptions; anything else (``script``, ``foreignObject``, ``style``,
  ``a``, animation elements, ``iframe``...) is dropped with everything inside it;
- attributes: geometry, presentation and text attributes, ``id``/``class``, ``viewBox`` and the
  like; event handlers (``on*``) and anything unlisted are dropped;
- links (``href``, ``xlink:href``): only to a fragment of the same drawing (``#id``) or, on
  ``image``, to an inline raster image (``data:image/png|jpeg|gif|webp;base64,...``); paint and
  filter references (``fill="url(#g)"``) only to fragments; ``style`` keeps its declarations
  without ``url(...)`` to anything but a fragment, ``expression(...)``, ``@import`` or
  ``javascript:``;
- text and attribute values are escaped on the way out; comments, processing instructions and
  doctype declarations are dropped.

The result is well formed: every kept element is closed, in order.
"""

from __future__ import annotations

import html
import re
from html.parser import HTMLParser

# Lower-case name (as the parser reports it) -> the SVG spelling.
ELEMENTS = {
    name.lower(): name
    for name in (
        "svg", "g", "defs", "symbol", "use", "title", "desc", "rect", "circle", "ellipse",
        "line", "polyline", "polygon", "path", "text", "tspan", "textPath", "image",
        "linearGradient", "radialGradient", "stop", "pattern", "clipPath", "mask", "marker",
    )
}  # fmt: skip
ATTRIBUTES = {
    name.lower(): name
    for name in (
        "id", "class", "x", "y", "x1", "y1", "x2", "y2", "cx", "cy", "r", "rx", "ry", "width",
        "height", "d", "points", "transform", "viewBox", "preserveAspectRatio", "fill",
        "fill-opacity", "fill-rule", "stroke", "stroke-width", "stroke-opacity",
        "stroke-linecap", "stroke-linejoin", "stroke-dasharray", "stroke-dashoffset",
        "stroke-miterlimit", "opacity", "color", "font-family", "font-size", "font-weight",
        "font-style", "text-anchor", "dominant-baseline", "alignment-baseline",
        "letter-spacing", "dx", "dy", "rotate", "textLength", "lengthAdjust", "offset",
        "stop-color", "stop-opacity", "gradientUnits", "gradientTransform", "spreadMethod",
        "fx", "fy", "fr", "patternUnits", "patternContentUnits", "patternTransform",
        "clipPathUnits", "clip-path", "clip-rule", "mask", "maskUnits", "maskContentUnits",
        "markerWidth", "markerHeight", "markerUnits", "refX", "refY", "orient", "marker-start",
        "marker-mid", "marker-end", "visibility", "display", "shape-rendering",
        "text-rendering", "vector-effect", "paint-order", "style", "href", "xlink:href",
        "xmlns", "xmlns:xlink", "version", "role", "aria-label", "aria-hidden", "focusable",
        "startOffset", "pathLength",
    )
}  # fmt: skip
LINKS = {"href", "xlink:href"}
NAMESPACES = {
    "xmlns": {"http://www.w3.org/2000/svg"},
    "xmlns:xlink": {"http://www.w3.org/1999/xlink"},
}
VOID = {"stop", "use", "image", "rect", "circle", "ellipse", "line", "polyline", "polygon", "path"}
_IMAGE_DATA = re.compile(r"data:image/(png|jpeg|gif|webp);base64,[A-Za-z0-9+/=\s]*\Z", re.I)
_URL = re.compile(r"url\(\s*(['\"]?)(.*?)\1\s*\)", re.I | re.S)
_DANGER = re.compile(r"expression\s*\(|@import|javascript\s*:|behaviou?r\s*:|-moz-binding", re.I)
_CONTROL = re.compile(r"[\x00-\x20\x7f]+")


def sanitize_svg(markup: str) -> str:
    """``markup`` with only the allowed elements, attributes and references (module doc)."""
    cleaner = _Cleaner()
    cleaner.feed(markup)
    cleaner.close()
    return cleaner.result()


def _fragment_only(value: str) -> bool:
    return value.startswith("#") and "(" not in value and ":" not in value


def _safe_url_refs(value: str) -> bool:
    """Whether every ``url(...)`` in a value points into the drawing (``url(#id)``)."""
    return all(_fragment_only(target.strip()) for _, target in _URL.findall(value))


def _link_ok(element: str, value: str) -> bool:
    target = _CONTROL.sub("", value)
    if _fragment_only(target):
        return True
    return element == "image" and bool(_IMAGE_DATA.match(target))


def _clean_style(value: str) -> str | None:
    kept = []
    for declaration in value.split(";"):
        if not declaration.strip():
            continue
        if _DANGER.search(_CONTROL.sub("", declaration)) or not _safe_url_refs(declaration):
            continue
        kept.append(declaration.strip())
    return "; ".join(kept) or None


def _clean_attribute(element: str, name: str, value: str | None) -> tuple[str, str] | None:
    canonical = ATTRIBUTES.get(name)
    if canonical is None or name.startswith("on") or value is None:
        return None
    if name in LINKS:
        return (canonical, value) if _link_ok(element, value) else None
    if name in NAMESPACES:
        return (canonical, value) if value in NAMESPACES[name] else None
    if name == "style":
        style = _clean_style(value)
        return (canonical, style) if style else None
    if _DANGER.search(_CONTROL.sub("", value)) or not _safe_url_refs(value):
        return None
    return canonical, value


class _Cleaner(HTMLParser):
    """Rewrites the allowed part of a document; skips a dropped element's whole subtree."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self._out: list[str] = []
        self._open: list[str] = []  # kept elements, innermost last
        self._skipping: list[str] = []  # dropped elements whose subtree is being skipped

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self._start(tag, attrs, closed=False)

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self._start(tag, attrs, closed=True)

    def _start(self, tag: str, attrs: list[tuple[str, str | None]], closed: bool) -> None:
        if self._skipping or tag not in ELEMENTS:
            if not closed and tag not in VOID:
                self._skipping.append(tag)
            return
        name = ELEMENTS[tag]
        kept = [a for a in (_clean_attribute(tag, key, value) for key, value in attrs) if a]
        attributes = "".join(f' {key}="{html.escape(value, quote=True)}"' for key, value in kept)
        if closed or tag in VOID:
            self._out.append(f"<{name}{attributes}/>")
        else:
            self._out.append(f"<{name}{attributes}>")
            self._open.append(tag)

    def handle_endtag(self, tag: str) -> None:
        if self._skipping:
            if tag == self._skipping[-1]:
                self._skipping.pop()
            return
        if tag in self._open:
            while self._open:  # close what is still open inside it, in order
                inner = self._open.pop()
                self._out.append(f"</{ELEMENTS[inner]}>")
                if inner == tag:
                    break

    def handle_data(self, data: str) -> None:
        if not self._skipping and self._open:
            self._out.append(html.escape(data, quote=False))

    def result(self) -> str:
        while self._open:
            self._out.append(f"</{ELEMENTS[self._open.pop()]}>")
        return "".join(self._out)
