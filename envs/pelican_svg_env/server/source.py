"""Layer 1, the source gate: a bounded XML parse and the cheats an SVG must not contain.

The submission is parsed by the standard library's expat parser (no DTD: a document with a
``<!DOCTYPE`` or ``<!ENTITY`` is refused before parsing, so no entity is ever expanded), with
bounds on elements and nesting. A drawing must be made of vector shapes; these are cheats and
fail the gate, each named with where it was found:

- ``raster``: an ``<image>``, ``<feImage>`` or any ``data:`` URI (a pasted picture);
- ``text``: ``<text>``, ``<tspan>``, ``<textPath>`` (writing "pelican" instead of drawing one);
- ``external``: a reference outside the document (``href``, ``url(...)``, ``@import``);
- ``script``: ``<script>``, ``<foreignObject>``, ``<iframe>``, ``on*`` event attributes,
  ``javascript:``.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from dataclasses import dataclass, field

SVG_NS = "http://www.w3.org/2000/svg"
XLINK_NS = "http://www.w3.org/1999/xlink"
MAX_ELEMENTS = 5000
MAX_DEPTH = 48
CHUNK = 8192  # characters fed to the parser between bound checks

RASTER_TAGS = {"image", "feimage"}
TEXT_TAGS = {"text", "tspan", "textpath"}
SCRIPT_TAGS = {"script", "foreignobject", "iframe", "object", "embed", "handler", "listener"}
_DTD = re.compile(r"<!\s*(doctype|entity)", re.I)
_URL = re.compile(r"url\(\s*['\"]?\s*([^'\")\s]*)", re.I)


class SvgRejected(ValueError):
    """The submission is not a well-formed, bounded SVG document (the reason says why)."""


@dataclass
class GateReport:
    """What the gate found: the cheats by kind, each with where."""

    findings: dict[str, list[str]] = field(default_factory=dict)

    def add(self, kind: str, where: str) -> None:
        found = self.findings.setdefault(kind, [])
        if len(found) < 5:  # enough to show; the kind alone fails the gate
            found.append(where)

    @property
    def passed(self) -> bool:
        return not self.findings

    def summary(self) -> str:
        if self.passed:
            return "passed: vector shapes only"
        return "; ".join(f"{kind}: {', '.join(where)}" for kind, where in self.findings.items())


def local(name: str) -> str:
    """``{ns}rect`` -> ``rect`` (lower case)."""
    return name.rsplit("}", 1)[-1].lower()


def parse(markup: str) -> ET.Element:
    """The document's root ``<svg>`` element, parsed within bounds; :class:`SvgRejected` if not."""
    if _DTD.search(markup):
        raise SvgRejected("a DOCTYPE or ENTITY declaration is not allowed in the drawing")
    parser = ET.XMLPullParser(events=("start", "end"))
    root: ET.Element | None = None
    count = depth = 0
    try:
        for offset in range(0, max(len(markup), 1), CHUNK):
            parser.feed(markup[offset : offset + CHUNK])
            for event, element in parser.read_events():
                if root is None:
                    root = element
                depth += 1 if event == "start" else -1
                count += event == "start"
                if count > MAX_ELEMENTS:
                    raise SvgRejected(f"more than {MAX_ELEMENTS} elements")
                if depth > MAX_DEPTH:
                    raise SvgRejected(f"elements nested more than {MAX_DEPTH} deep")
        parser.close()
    except ET.ParseError as exc:
        raise SvgRejected(f"not well-formed XML: {exc}") from None
    if root is None or local(root.tag) != "svg":
        found = "nothing" if root is None else f"<{local(root.tag)}>"
        raise SvgRejected(f"the root element is {found}, not <svg>")
    return root


def gate(root: ET.Element) -> GateReport:
    """Every cheat in the document (module doc)."""
    report = GateReport()
    for element in root.iter():
        tag = local(element.tag)
        if tag in RASTER_TAGS:
            report.add("raster", f"<{tag}>")
        elif tag in TEXT_TAGS:
            report.add("text", f"<{tag}>")
        elif tag in SCRIPT_TAGS:
            report.add("script", f"<{tag}>")
        if tag == "style":
            _check_value(report, tag, "style", element.text or "")
        for name, value in element.attrib.items():
            _check_attribute(report, tag, local(name), value)
    return report


def _check_attribute(report: GateReport, tag: str, name: str, value: str) -> None:
    if name.startswith("on"):
        report.add("script", f"<{tag} {name}>")
        return
    if name == "href" and not value.strip().startswith("#"):
        kind = "raster" if value.strip().lower().startswith("data:") else "external"
        report.add(kind, f"<{tag} href>")
        return
    _check_value(report, tag, name, value)


def _check_value(report: GateReport, tag: str, name: str, value: str) -> None:
    squeezed = re.sub(r"\s+", "", value).lower()
    if "javascript:" in squeezed:
        report.add("script", f"<{tag} {name}>")
    if "data:" in squeezed:
        report.add("raster", f"<{tag} {name}>")
    if "@import" in squeezed or any(not t.startswith("#") for t in _URL.findall(value) if t):
        report.add("external", f"<{tag} {name}>")
