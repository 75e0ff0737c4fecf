"""A tool environment whose tools take nested objects and arrays, for the playground tests.

Served with ``uvicorn tool_apps:app --app-dir tests``; its Tools tab is ``openenv.web.page.tools``.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel

from openenv.core.mcp import MCPEnvironment, tool
from openenv.server import create_app


class Point(BaseModel):
    x: int
    y: int = 0


class Geometry(MCPEnvironment):
    @tool
    def centroid(self, points: list[Point], unit: Literal["cm", "in"] = "cm") -> dict[str, Any]:
        """Average position of the points.

        Args:
            points: At least one point, each with x and y.
            unit: Unit of the coordinates.
        """
        if not points:
            raise ValueError("give at least one point")
        n = len(points)
        return {"x": sum(p.x for p in points) / n, "y": sum(p.y for p in points) / n, "unit": unit}

    @tool
    def shout(self, text: str, times: int = 1) -> str:
        """Upper-case the text, repeated."""
        return " ".join([text.upper()] * times)


app = create_app(Geometry)
