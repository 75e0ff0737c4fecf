"""Probes that are not episodes: the typed client, ``check_env``, the server app, the host."""

from __future__ import annotations

import os
import resource
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from openenv.core.errors import EnvNotFound
from openenv.core.registry import EnvPackage
from openenv.validation.evidence import ContractRecord, ServerRecord
from openenv.validation.oracle import Oracle

MCP_LIST = {"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {}}
MAX_LISTED = 2000  # files compared before and after the episodes


def probe_client(entry: EnvPackage) -> tuple[str | None, str | None]:
    """(the client's declaration, None) or (None, what is wrong with it)."""
    try:
        client = entry.client_class()
    except EnvNotFound as exc:
        return None, str(exc)
    except Exception as exc:  # any import-time error is this probe's finding
        return None, f"importing {entry.package} raised {type(exc).__name__}: {exc}"
    models = client._models()  # type: ignore[attr-defined]
    if None in models:
        return None, f"{client.__name__} must subclass EnvClient[Action, Obs, State]"
    return f"{client.__name__}(EnvClient[{', '.join(m.__name__ for m in models)}])", None


def probe_contract(
    env_cls: type, oracle: Oracle | None, wall_clock: tuple[str, ...] = ()
) -> ContractRecord:
    """Run ``check_env`` with the declared wall-clock fields and, for envs without legal
    actions, the oracle's example actions."""
    from openenv.testing import EnvCheckError, check_env

    kwargs: dict[str, Any] = {"wall_clock_fields": wall_clock}
    if oracle is not None:
        kwargs["actions"] = lambda env, rng: oracle.random_action(env, None, rng)
        kwargs["reset_kwargs"] = dict(oracle.reset_options)
    try:
        notes = check_env(env_cls(), **kwargs)
    except EnvCheckError as exc:
        return ContractRecord(error=f"{env_cls.__name__}: {exc}")
    except Exception as exc:  # a crash inside the env is the finding: report it, don't hide it
        return ContractRecord(error=f"{env_cls.__name__} raised {type(exc).__name__}: {exc}")
    return ContractRecord(error=None, notes=tuple(notes))


def probe_server(entry: EnvPackage) -> ServerRecord:
    """Start the package's app in-process and ask what a client and the validator ask."""
    try:
        app = entry.import_app()
    except Exception as exc:  # the app failing to import is the finding
        return ServerRecord(entry.app_ref, error=f"importing raised {type(exc).__name__}: {exc}")
    from fastapi.testclient import TestClient

    from openenv.server.limits import max_message_bytes

    limit = max_message_bytes()
    with TestClient(app) as client:
        statuses = {p: client.get(p).status_code for p in ("/health", "/metadata", "/schema")}
        statuses["/web/"] = client.get("/web/").status_code
        tools, mcp_error = _tools(client)
        oversize = client.post("/step", content=b'{"action": "' + b"x" * limit + b'"}')
        ctx = getattr(app.state, "openenv", None)
    manager = getattr(ctx, "manager", None)
    return ServerRecord(
        app=entry.app_ref,
        statuses=statuses,
        tools=tools,
        mcp_error=mcp_error,
        oversize_status=oversize.status_code,
        message_limit=limit,
        call_timeout_s=getattr(getattr(manager, "pool", None), "time_limit_s", None),
        max_sessions=getattr(manager, "max_sessions", None),
    )


def _tools(client: Any) -> tuple[tuple[str, ...] | None, str | None]:
    reply = client.post("/mcp", json=MCP_LIST)
    if reply.status_code != 200:
        return None, f"POST /mcp answered HTTP {reply.status_code}"
    body = reply.json()
    if isinstance(body, dict) and isinstance(body.get("result"), dict):
        return tuple(sorted(t.get("name", "") for t in body["result"].get("tools", []))), None
    error = body.get("error", {}) if isinstance(body, dict) else {}
    return None, f"JSON-RPC error {error.get('code')}: {error.get('message')}"


def listing(roots: list[Path]) -> set[str]:
    """Files under ``roots`` (bounded; caches skipped), to compare before and after episodes."""
    found: set[str] = set()
    for root in roots:
        for folder, dirs, files in os.walk(root):
            dirs[:] = [d for d in dirs if d not in ("__pycache__", ".git", ".pytest_cache")]
            found.update(os.path.join(folder, f) for f in files)
            if len(found) > MAX_LISTED:
                return found
    return found


def rss_mb() -> float:
    """This process's peak resident memory, in MiB."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


@contextmanager
def quiet_cwd(path: Path) -> Iterator[None]:
    """Run with ``path`` as the working directory: an env writing to '.' writes there."""
    before = Path.cwd()
    os.chdir(path)
    try:
        yield
    finally:
        os.chdir(before)
