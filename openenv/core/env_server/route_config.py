"""``openenv.core.env_server.route_config``: declare simple GET routes as data (``openenv``
0.10's helper for env code that adds its own read-only endpoints)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

__all__ = ["GetEndpointConfig", "register_get_endpoints"]


@dataclass
class GetEndpointConfig:
    """One GET route: its path, a no-argument handler, and what OpenAPI says about it."""

    path: str
    handler: Callable[[], Any]
    response_model: Any
    tag: str
    summary: str
    description: str


def register_get_endpoints(app: Any, configs: list[GetEndpointConfig]) -> None:
    """Add each configured GET route to the FastAPI ``app``."""
    for config in configs:
        app.add_api_route(
            config.path,
            _endpoint(config.handler),
            methods=["GET"],
            response_model=config.response_model,
            tags=[config.tag],
            summary=config.summary,
            description=config.description,
        )


def _endpoint(handler: Callable[[], Any]) -> Callable[[], Any]:
    async def endpoint() -> Any:
        return handler()

    return endpoint
