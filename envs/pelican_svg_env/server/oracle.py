"""Pelican SVG's oracle submits the task's reference drawing (every geometry check passes).

The validator runs without a judge, so a score is the geometry layer's: the oracle scores 1.0.
Random and null policies pick from example submissions that fall short (a blank canvas, a
lone wheel, a stick figure). Canaries cheat: a pasted PNG, the task written as text, an
external picture, a script, and a document that is no SVG; each must score 0.
"""

from __future__ import annotations

from typing import Any

from openenv.validation.oracle import Canary, Oracle
from pelican_svg_env.server.drawing import reference_svg

SVG = '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 400 300">{}</svg>'
PNG = (
    "data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDw"
    "AEhQGAhKmMIQAAAABJRU5ErkJggg=="
)
EXAMPLES = [
    SVG.format(""),
    SVG.format('<circle cx="200" cy="220" r="50" fill="none" stroke="#333" stroke-width="6"/>'),
    SVG.format(
        '<circle cx="200" cy="60" r="30" fill="#fc0"/><line x1="200" y1="90" x2="200" y2="200" '
        'stroke="#000"/><line x1="200" y1="200" x2="160" y2="280" stroke="#000"/>'
    ),
]


class PelicanSvgOracle(Oracle):
    score_range = (0.0, 1.0)
    floor_margin = 0.5
    max_steps = 2
    probe_steps = 2
    reset_options = {"judge": "off"}

    def act(self, env: Any, observation: Any) -> dict[str, Any] | None:
        return {"svg": reference_svg(env._task)}

    def example_actions(self, env: Any, observation: Any) -> list[dict[str, Any]]:
        return [{"svg": svg} for svg in EXAMPLES]

    def canaries(self) -> list[Canary]:
        def cheat(name: str, description: str, body: str) -> Canary:
            return Canary.repeat(name, description, {"svg": SVG.format(body)})

        return [
            cheat("raster", "a pasted PNG", f'<image href="{PNG}" width="400" height="300"/>'),
            cheat(
                "text", "the task written as text", "<text x='10' y='50'>a pelican on a bike</text>"
            ),
            cheat(
                "external",
                "a picture from elsewhere",
                '<rect width="400" height="300" fill="url(https://example.com/p.svg#x)"/>',
            ),
            cheat("script", "a script", "<script>alert(1)</script><circle r='9'/>"),
            Canary.repeat("not_svg", "an HTML page", {"svg": "<html><body>pelican</body></html>"}),
        ]


ORACLE = PelicanSvgOracle()
