"""Typed client of the web search server."""

from __future__ import annotations

from openenv.client import EnvClient
from websearch_env.models import WebSearchAction, WebSearchObservation, WebSearchState


class WebSearchEnv(EnvClient[WebSearchAction, WebSearchObservation, WebSearchState]):
    """``async with WebSearchEnv(base_url=...) as env`` or ``WebSearchEnv(...).sync()``:
    ``step(WebSearchAction(query=...))`` searches, ``step(WebSearchAction(answer=...))``
    answers the episode's question and ends it with the reward."""
