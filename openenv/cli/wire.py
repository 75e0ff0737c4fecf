"""``openenv validate --url URL``: the checks of ``check_env``, over the wire, on a running server.

HTTP: ``/health``, ``/metadata``, ``/schema``. WebSocket ``/ws``: reset, state, a step with the
first of the server's own legal actions (``{"type": "view"}``; a server that offers none, such as
the reference's, gets an action built from the schema, and the report says so), seeded
determinism across two sessions (the observation's declared wall-clock fields, ``x-wall-clock``
in its schema, are not compared), and a malformed message that must be answered with an error
while the session stays usable.
"""

from __future__ import annotations

import json
from typing import Any

import httpx

from openenv.cli.report import Report
from openenv.client.env_client import ws_url
from openenv.validation.evidence import declared_wall_clock, masked

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
    fallback = example_action(schema.get("action", {})) if schema else None
    clock = declared_wall_clock(schema.get("observation")) if schema else ()
    _check_episode(base, headers, fallback, report, clock)
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
    base: str,
    headers: dict[str, str],
    fallback: dict[str, Any] | None,
    report: Report,
    clock: tuple[str, ...] = (),
) -> None:
    from websockets.exceptions import WebSocketException
    from websockets.sync.client import connect

    try:
        with connect(ws_url(base), additional_headers=headers, open_timeout=TIMEOUT_S) as ws:
            first, action = _episode(ws, fallback, report)
            _check_bad_message(ws, report)
        if first is None:
            return
        with connect(ws_url(base), additional_headers=headers, open_timeout=TIMEOUT_S) as ws:
            second = _replay(ws, action)
    except (OSError, TimeoutError, WebSocketException) as exc:
        report.failed("websocket", f"{ws_url(base)}: {exc}")
        return
    if _masked(second, clock) == _masked(first, clock):
        note = f" (wall-clock fields not compared: {', '.join(clock)})" if clock else ""
        report.passed("determinism", f"two sessions with seed 0 and the same action agree{note}")
    else:
        report.failed("determinism", "two sessions with seed 0 and the same action differ")


def _masked(replies: list[Any], clock: tuple[str, ...]) -> list[Any]:
    """Replies with the observation's wall-clock fields masked (under "observation"; a reply
    carries the observation's metadata beside it too)."""
    paths = [f"observation.{path}" for path in clock]
    paths += [path for path in clock if path.startswith("metadata.")]
    return [masked(reply, paths) for reply in replies]


def _legal_action(ws: Any) -> dict[str, Any] | None:
    """The first legal action (or the sliders' start) the server offers now, if it says."""
    reply = _call(ws, {"type": "view"})
    data = reply.get("data") if reply.get("type") == "view" else None
    if not isinstance(data, dict):
        return None
    legal = data.get("legal") or []
    if legal and isinstance(legal[0], dict) and isinstance(legal[0].get("action"), dict):
        return legal[0]["action"]
    sliders = data.get("sliders")
    if isinstance(sliders, dict) and isinstance(sliders.get("sliders"), list):
        values = [s.get("value", 0.0) for s in sliders["sliders"] if isinstance(s, dict)]
        value: Any = values[0] if sliders.get("scalar") and values else values
        return {**(sliders.get("action") or {}), str(sliders.get("field")): value}
    return None


def _call(ws: Any, message: dict[str, Any]) -> dict[str, Any]:
    ws.send(json.dumps(message))
    return json.loads(ws.recv(timeout=TIMEOUT_S))


def _episode(
    ws: Any, fallback: dict[str, Any] | None, report: Report
) -> tuple[list[Any] | None, dict[str, Any] | None]:
    reset = _call(ws, {"type": "reset", "data": {"seed": 0}})
    if reset.get("type") != "observation":
        report.failed("reset", f"reset(seed=0) answered {reset}")
        return None, None
    report.passed("reset", "reset(seed=0) over /ws returns an observation")
    state = _call(ws, {"type": "state"})
    if state.get("type") != "state" or state.get("data", {}).get("step_count") != 0:
        report.failed("state", f"state after reset should have step_count 0, got {state}")
        return None, None
    report.passed("state", "step_count 0 after reset")
    action = _legal_action(ws)
    source = "the server's first legal action"
    if action is None:
        action, source = fallback, "an action built from the schema (the server offers none)"
    if action is None:
        report.warned("step", "no legal action offered and none buildable: step not checked")
        return None, None
    step = _call(ws, {"type": "step", "data": action})
    if step.get("type") == "error":
        err = step.get("data", {})
        report.warned("step", f"{source} {action} was refused ({err.get('code')})")
        return None, None
    if step.get("type") != "observation" or "done" not in step.get("data", {}):
        report.failed("step", f"step answered {step}")
        return None, None
    report.passed("step", f"step({action}), {source}, returns an observation with reward and done")
    return [_without_ids(reset), _without_ids(step)], action


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
