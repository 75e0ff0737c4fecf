"""The Setup tab: the server's endpoint and its capture label ([TRAIN] or [EVAL ONLY]), which
sandboxes run here (and why not), the served splits, and the agents (harnesses) with whether
each is installed.

:func:`capabilities` looks (the sandbox checks start processes: a few seconds, cached for
``TTL_S``); :func:`setup_html` draws what it found, escaped.
"""

from __future__ import annotations

import threading
import time
from typing import Any

from openenv.harbor.service import HarborService
from openenv.harbor.web.timeline import esc

TTL_S = 60.0
_cache: dict[int, tuple[float, dict[str, Any]]] = {}
_lock = threading.Lock()


def sandbox_problems() -> dict[str, str | None]:
    """Each sandbox a run may use here, and why it cannot run (None: it can)."""
    from openenv.core.harness.docker_sandbox import docker_problem
    from openenv.core.harness.sandboxes import process_sandbox_status

    usable, detail = process_sandbox_status()
    return {"process": None if usable else detail, "docker": docker_problem()}


def harness_problems() -> dict[str, str | None]:
    """Each harness this build knows, and why it cannot run (None: installed, ready)."""
    from openenv.core.harness.harnesses import HARNESSES, HarnessUnavailable, get_harness

    found: dict[str, str | None] = {}
    for name in HARNESSES:
        try:
            found[name] = get_harness(name).problem()
        except HarnessUnavailable as exc:
            found[name] = str(exc)
    return found


def docker_needs() -> dict[str, str]:
    """What a task's image must hold for each harness to run in the Docker sandbox."""
    from openenv.core.harness.harnesses import HARNESSES, get_harness

    return {name: get_harness(name).container_needs() for name in HARNESSES}


def capabilities(service: HarborService, fresh: bool = False) -> dict[str, Any]:
    """What this server can run now: its endpoint, sandboxes, splits and harnesses."""
    key = id(service)
    with _lock:
        known = _cache.get(key)
    if known is not None and not fresh and time.monotonic() - known[0] < TTL_S:
        return known[1]
    server = service.endpoints.server
    found = {
        "server": server.describe() if server is not None else None,
        "allow_urls": service.endpoints.allow_urls,
        "sandboxes": sandbox_problems(),
        "harnesses": harness_problems(),
        "docker_needs": docker_needs(),
        "splits": service.splits(),
    }
    with _lock:
        _cache[key] = (time.monotonic(), found)
    return found


def setup_html(found: dict[str, Any]) -> str:
    return (
        f'<div class="hb-setup">{_endpoint(found)}'
        f"{_table('Sandboxes', found['sandboxes'], 'usable here')}"
        f"{_splits(found['splits'])}"
        f"{_table('Agents (harnesses)', found['harnesses'], 'installed', _in_docker(found))}"
        "</div>"
    )


def _in_docker(found: dict[str, Any]) -> dict[str, str]:
    return {name: f"in docker, the image needs {needs}" for name, needs in
            (found.get("docker_needs") or {}).items()}  # fmt: skip


def _endpoint(found: dict[str, Any]) -> str:
    server = found.get("server")
    if server is None:
        line = (
            "<p>None: this server was started without <code>--llm-url</code>. Runs use your own "
            "endpoint or the shipped TEST engine (a scripted replay, not a model).</p>"
        )
    else:
        notes = "".join(f"<li>{esc(n)}</li>" for n in server.get("notes") or [])
        line = (
            f'<p><span class="hb-label">{esc(server.get("label"))}</span> '
            f"<code>{esc(server.get('url'))}</code> · model <code>{esc(server.get('model'))}</code>"
            f" · capture <b>{esc(server.get('capture_level'))}</b>"
            f" · tool calls {esc(server.get('tools'))}</p>" + (f"<ul>{notes}</ul>" if notes else "")
        )
    urls = (
        "Visitors may run on their own OpenAI-compatible URL (probed before use)."
        if found.get("allow_urls")
        else "Runs use this server's endpoint only (visitors' URLs are off)."
    )
    return f'<h4>This server\'s endpoint</h4>{line}<p class="hb-muted">{esc(urls)}</p>'


def _table(
    title: str, problems: dict[str, str | None], ok_word: str, notes: dict[str, str] | None = None
) -> str:
    rows = []
    for name, problem in problems.items():
        note = (notes or {}).get(name)
        state = (
            f'<span class="hb-pass">✓ {esc(ok_word)}</span>'
            + (f' <span class="hb-muted">· {esc(note)}</span>' if note else "")
            if problem is None
            else f'<span class="hb-fail">✗ {esc(problem[:400])}</span>'
        )
        rows.append(f"<tr><td><code>{esc(name)}</code></td><td>{state}</td></tr>")
    return f'<h4>{esc(title)}</h4><table class="hb-table">{"".join(rows)}</table>'


def _splits(splits: list[dict[str, Any]]) -> str:
    rows = "".join(
        f"<tr><td><code>{esc(s['name'])}</code></td><td>{int(s['n_tasks'])} task(s)</td></tr>"
        for s in splits
    )
    return f'<h4>Served datasets (splits)</h4><table class="hb-table">{rows}</table>'
