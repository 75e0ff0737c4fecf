"""Typed client of the FinRL server."""

from __future__ import annotations

from typing import Any

import httpx

from finrl_env.models import FinRLAction, FinRLObservation, FinRLState
from openenv.client import EnvClient


def http_url(base_url: str) -> str:
    """The HTTP address of a server given as ``ws://``/``wss://`` or ``http(s)://``."""
    for ws, http in (("ws://", "http://"), ("wss://", "https://")):
        if base_url.startswith(ws):
            return http + base_url[len(ws) :]
    return base_url


class FinRLEnv(EnvClient[FinRLAction, FinRLObservation, FinRLState]):
    """``async with FinRLEnv(base_url=...) as env`` or ``FinRLEnv(...).sync()``.

    ``get_config()`` (as in the reference) gives what a reset without options plays:
    ``stock_dim``, ``action_space``, ``state_space``, ``initial_amount``, ``tech_indicators``...
    """

    async def get_config(self) -> dict[str, Any]:
        """The server's default configuration (``GET /config``)."""
        headers = {"Authorization": f"Bearer {self._token}"} if self._token else {}
        async with httpx.AsyncClient(timeout=self._message_timeout) as http:
            reply = await http.get(http_url(self.base_url) + "/config", headers=headers)
        reply.raise_for_status()
        return reply.json()
