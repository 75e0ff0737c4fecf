"""An env server played through its ``/ws``, shaped like the in-process environment that
:mod:`openenv.validation.play` steps, so the runtime episodes run unchanged against a container.

:func:`remote_class` makes, for one environment class, a class whose instances are one
WebSocket session each: ``reset`` and ``step`` send the messages a client sends and parse the
observation with the env's own observation model; ``legal_actions`` and ``action_sliders`` are
what the server's ``{"type": "view"}`` offers (the buttons a visitor gets); an action the
server refuses (``VALIDATION_ERROR``) raises :class:`InvalidAction` as the env would in-process,
any other error a :class:`RemoteError`. :func:`probe_remote` asks the server over HTTP what
``probes.probe_server`` asks the app in-process.
"""

from __future__ import annotations

import contextlib
import json
from typing import Any

import httpx

from openenv.core.errors import InvalidAction, OpenEnvError
from openenv.core.serialization import step_result_from_wire
from openenv.core.view_wire import drawing_from_wire

TIMEOUT_S = 60.0


class RemoteError(OpenEnvError):
    """The server answered a message with an error other than a refused action."""


class RemoteEnv:
    """One session on a server's ``/ws`` (subclassed per env by :func:`remote_class`)."""

    env_cls: type = object

    def __init__(self, base_url: str) -> None:
        self.base_url = base_url
        self._ws: Any = None
        self._stack = contextlib.ExitStack()
        self._drawing: tuple[Any, list[Any], Any] | None = None

    @classmethod
    def wire_types(cls) -> tuple[Any, ...]:
        return cls.env_cls.wire_types()  # type: ignore[attr-defined]

    def _call(self, kind: str, data: Any = None) -> Any:
        if self._ws is None:
            from websockets.sync.client import connect

            from openenv.client.env_client import ws_url

            socket = connect(ws_url(self.base_url), open_timeout=TIMEOUT_S, max_size=None)
            self._ws = self._stack.enter_context(socket)
        message: dict[str, Any] = {"type": kind}
        if data is not None:
            message["data"] = data
        self._ws.send(json.dumps(message))
        reply = json.loads(self._ws.recv(timeout=TIMEOUT_S))
        if reply.get("type") == "error":
            error = reply.get("data") or {}
            text = str(error.get("message") or error)
            if error.get("code") == "VALIDATION_ERROR":
                raise InvalidAction(text)
            raise RemoteError(f"{error.get('code')}: {text}")
        return reply.get("data")

    def _observation(self, payload: Any) -> Any:
        self._drawing = None
        return step_result_from_wire(payload, self.wire_types()[1]).observation

    def reset(self, seed: int | None = None, **options: Any) -> Any:
        return self._observation(self._call("reset", {"seed": seed, **options}))

    def step(self, action: Any) -> Any:
        data = action.model_dump(mode="json") if hasattr(action, "model_dump") else action
        return self._observation(self._call("step", data))

    def _view(self) -> tuple[Any, list[Any], Any]:
        if self._drawing is None:
            self._drawing = drawing_from_wire(self._call("view"))
        return self._drawing

    def legal_actions(self) -> list[Any]:
        return list(self._view()[1])

    def action_sliders(self) -> Any:
        return self._view()[2]

    def close(self) -> None:
        self._ws = None
        self._stack.close()


def remote_class(env_cls: type) -> type[RemoteEnv]:
    """A :class:`RemoteEnv` whose models are ``env_cls``'s (named after it in records)."""
    return type(f"Remote{env_cls.__name__}", (RemoteEnv,), {"env_cls": env_cls})


def probe_remote(base_url: str, message_limit: int) -> dict[str, Any]:
    """Statuses of /health, /metadata, /schema and /web/, /mcp's tools/list and the answer to
    a body past ``message_limit``, asked of the server at ``base_url``."""
    from openenv.validation.probes import MCP_LIST

    with httpx.Client(base_url=base_url, timeout=TIMEOUT_S, trust_env=False) as http:
        statuses = {p: http.get(p).status_code for p in ("/health", "/metadata", "/schema")}
        statuses["/web/"] = http.get("/web/").status_code
        reply = http.post("/mcp", json=MCP_LIST)
        oversize = http.post("/step", content=b'{"action": "' + b"x" * message_limit + b'"}')
    tools: tuple[str, ...] | None = None
    mcp_error = None
    body = reply.json() if reply.status_code == 200 else None
    if reply.status_code != 200:
        mcp_error = f"POST /mcp answered HTTP {reply.status_code}"
    elif isinstance(body, dict) and isinstance(body.get("result"), dict):
        tools = tuple(sorted(t.get("name", "") for t in body["result"].get("tools", [])))
    else:
        error = body.get("error", {}) if isinstance(body, dict) else {}
        mcp_error = f"JSON-RPC error {error.get('code')}: {error.get('message')}"
    return {
        "statuses": statuses,
        "tools": tools,
        "mcp_error": mcp_error,
        "oversize_status": oversize.status_code,
    }
