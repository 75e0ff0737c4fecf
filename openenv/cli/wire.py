"""``openenv validate --url URL``: the checks of ``check_env``, over the wire, on a running server.

HTTP: ``/health``, ``/metadata``, ``/schema``. WebSocket ``/ws``: reset, state, a step with an
action built from the schema, seeded determinism across two sessions, and a malformed message
that must be answered with an error while the session stays usable.
"""

from __future__ import annotations

import json
from typing import Any

import httpx

from openenv.cli.report import Report
from openenv.client.env_client import ws_url

TIMEOUT_S = 30.0


def validate_url(base_url: str, token: str | None = None) -> Report:
    """Run the wire checks against ``base_url``; a server that is down fails the first one."""
    base = base_url.rstrip("/")
    report = Report(base)
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    with httpx.Client(base_url=base, headers=headers, timeout=TIMEOUT_S) as http:
        if not _check_health(http, report):
            return report
        _check_metadata(http, report)
        schema = _check_schema(http, report)
    action = example_action(schema.get("action", {})) if schema else None
    _check_episode(base, headers, action, report)
    return report


def _get(http: httpx.Client, path: str) -> Any:
    response = http.get(path)
    response.raise_for_status()
    return response.json()


def _check_health(http: httpx.Client, report: Report) -> bool:
    try:
        body = _get(http, "/health")
    except (httpx.HTTPError, ValueError) as exc:
        report.failed("health", f"GET /health failed: {exc}")
        return False
    if body.get("status") != "healthy":
        report.failed("health", f'GET /health answered {body}, expected {{"status": "healthy"}}')
        return False
    report.passed("health", "GET /health is healthy")
    return True


def _check_metadata(http: httpx.Client, report: Report) -> None:
    try:
        body = _get(http, "/metadata")
    except (httpx.HTTPError, ValueError) as exc:
        report.failed("metadata", f"GET /metadata failed: {exc}")
        return
    if not body.get("name"):
        report.failed("metadata", "GET /metadata has no name")
    else:
        report.passed("metadata", f"{body['name']} {body.get('version') or ''}".strip())


def _check_schema(http: httpx.Client, report: Report) -> dict[str, Any] | None:
    try:
        body = _get(http, "/schema")
    except (httpx.HTTPError, ValueError) as exc:
        report.failed("schema", f"GET /schema failed: {exc}")
        return None
    missing = [k for k in ("action", "observation", "state") if not isinstance(body.get(k), dict)]
    if missing:
        report.failed("schema", f"GET /schema lacks {', '.join(missing)}")
        return None
    report.passed("schema", f"action {body['action'].get('title', '?')}, observation, state")
    return body


def example_action(schema: dict[str, Any]) -> dict[str, Any] | None:
    """A value for every required field of an action schema, or ``None`` if one can't be made."""
    defs = schema.get("$defs", {})
    action = {}
    for name in schema.get("required", []):
        value = _example(schema.get("properties", {}).get(name, {}), defs)
        if value is _NONE:
            return None
        action[name] = value
    return action


_NONE = object()


def _example(prop: dict[str, Any], defs: dict[str, Any]) -> Any:
    if "$ref" in prop:
        prop = defs.get(prop["$ref"].rsplit("/", 1)[-1], {})
    if "default" in prop:
        return prop["default"]
    if "enum" in prop:
        return prop["enum"][0]
    if "const" in prop:
        return prop["const"]
    for option in prop.get("anyOf", []) + prop.get("oneOf", []):
        value = _example(option, defs)
        if value is not _NONE:
            return value
    simple = {"string": "a", "boolean": False, "array": [], "object": {}, "null": None}
    kind = prop.get("type")
    if kind in ("integer", "number"):
        return prop.get("minimum", prop.get("exclusiveMinimum", -1) + 1)
    return simple.get(kind, _NONE) if isinstance(kind, str) else _NONE


def _check_episode(
    base: str, headers: dict[str, str], action: dict[str, Any] | None, report: Report
) -> None:
    from websockets.exceptions import WebSocketException
    from websockets.sync.client import connect

    try:
        with connect(ws_url(base), additional_headers=headers, open_timeout=TIMEOUT_S) as ws:
            first = _episode(ws, action, report)
            _check_bad_message(ws, report)
        if first is None:
            return
        with connect(ws_url(base), additional_headers=headers, open_timeout=TIMEOUT_S) as ws:
            second = _replay(ws, action)
    except (OSError, TimeoutError, WebSocketException) as exc:
        report.failed("websocket", f"{ws_url(base)}: {exc}")
        return
    if second == first:
        report.passed("determinism", "two sessions with seed 0 and the same action agree")
    else:
        report.failed("determinism", "two sessions with seed 0 and the same action differ")


def _call(ws: Any, message: dict[str, Any]) -> dict[str, Any]:
    ws.send(json.dumps(message))
    return json.loads(ws.recv(timeout=TIMEOUT_S))


def _episode(ws: Any, action: dict[str, Any] | None, report: Report) -> list[Any] | None:
    reset = _call(ws, {"type": "reset", "data": {"seed": 0}})
    if reset.get("type") != "observation":
        report.failed("reset", f"reset(seed=0) answered {reset}")
        return None
    report.passed("reset", "reset(seed=0) over /ws returns an observation")
    state = _call(ws, {"type": "state"})
    if state.get("type") != "state" or state.get("data", {}).get("step_count") != 0:
        report.failed("state", f"state after reset should have step_count 0, got {state}")
        return None
    report.passed("state", "step_count 0 after reset")
    if action is None:
        report.warned("step", "could not build an action from the schema: step not checked")
        return None
    step = _call(ws, {"type": "step", "data": action})
    if step.get("type") == "error":
        err = step.get("data", {})
        report.warned("step", f"the example action {action} was refused ({err.get('code')})")
        return None
    if step.get("type") != "observation" or "done" not in step.get("data", {}):
        report.failed("step", f"step answered {step}")
        return None
    report.passed("step", f"step({action}) returns an observation with reward and done")
    return [_without_ids(reset), _without_ids(step)]


def _replay(ws: Any, action: dict[str, Any] | None) -> list[Any]:
    reset = _call(ws, {"type": "reset", "data": {"seed": 0}})
    return [_without_ids(reset), _without_ids(_call(ws, {"type": "step", "data": action}))]


def _without_ids(message: dict[str, Any]) -> Any:
    text = json.dumps(message.get("data"), sort_keys=True)
    data = json.loads(text)
    if isinstance(data, dict) and isinstance(data.get("observation"), dict):
        data["observation"].pop("episode_id", None)
    return data


def _check_bad_message(ws: Any, report: Report) -> None:
    ws.send("this is not json")
    reply = json.loads(ws.recv(timeout=TIMEOUT_S))
    code = reply.get("data", {}).get("code")
    still = _call(ws, {"type": "state"})
    if reply.get("type") == "error" and code == "INVALID_JSON" and still.get("type") == "state":
        report.passed("errors", "bad JSON gets an INVALID_JSON error and the session goes on")
    else:
        report.failed("errors", f"bad JSON answered {reply}, then {still}")
