"""The playground's guards against anonymous visitors: no uploads, export links that cannot
act, tabs forgotten once their session is gone, pictures per tab bounded, security headers."""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest
from fastapi.testclient import TestClient
from grid_world_env.server.environment import GridWorldEnvironment

from openenv.server import create_app
from openenv.web.drawing import Picture
from openenv.web.stage import messages
from openenv.web.stage import tabs as tabs_module
from openenv.web.stage.tabs import MAX_RECORDED_BYTES, Episode, TabRegistry


@pytest.fixture(scope="module")
def client() -> Iterator[TestClient]:
    with TestClient(create_app(GridWorldEnvironment)) as c:
        yield c


def test_gradio_uploads_are_refused(client: TestClient) -> None:
    for route in ("/web/gradio_api/upload", "/web/upload"):
        answer = client.post(route, files={"files": ("x.txt", b"anonymous bytes")})
        assert answer.status_code == 403, (route, answer.status_code)


def test_an_export_link_reads_the_episode_and_cannot_act_on_the_tab(client: TestClient) -> None:
    opened = client.post("/web/stage/open", json={}).json()
    key = opened["tab"]
    moved = client.post("/web/stage/act", json={"tab": key, "index": 1}).json()
    export = re.search(r'href="export/([^/"]+)/episode\.jsonl"', moved["html"]).group(1)
    assert export != key and key not in moved["html"].split("oe-downloads")[1]
    assert client.get(f"/web/export/{export}/episode.jsonl").text.count("\n") == 1
    refused = client.post("/web/stage/act", json={"tab": export, "index": 1}).json()
    assert refused["ok"] is False  # the link's key is no key to the tab
    assert client.get(f"/web/export/{key}/episode.jsonl").status_code == 404
    client.post("/web/stage/close", json={"tab": key})


def test_a_tab_key_acts_only_for_the_visitor_who_opened_the_tab(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("OPENENV_TRUSTED_PROXIES", "1")  # a stand-in proxy: addresses per header
    owner, other = {"X-Forwarded-For": "198.51.100.4"}, {"X-Forwarded-For": "203.0.113.9"}
    with TestClient(create_app(GridWorldEnvironment)) as c:
        key = c.post("/web/stage/open", json={}, headers=owner).json()["tab"]
        for route, body in (("act", {"index": 1}), ("reset", {}), ("redraw", {})):
            stolen = c.post(f"/web/stage/{route}", json={"tab": key, **body}, headers=other)
            assert stolen.json() == {"ok": False, "error": messages.NOT_YOURS}, route
        c.post("/web/stage/close", json={"tab": key}, headers=other)  # not closed by another
        mine = c.post("/web/stage/act", json={"tab": key, "index": 1}, headers=owner).json()
        assert mine["ok"] is True and 'data-steps="1"' in mine["html"]
        c.post("/web/stage/close", json={"tab": key}, headers=owner)


def test_tabs_without_a_session_are_forgotten_after_the_grace_period() -> None:
    registry = TabRegistry()
    left = registry.create("page-1", authorized=True)  # never got a session
    live = registry.create("page-2", authorized=True)
    live.idle_since = None  # has one
    later = (left.idle_since or 0) + tabs_module.TAB_GRACE_S + 1
    assert registry.forget_stale(now=later) == [left]
    assert registry.by_key(left.key) is None and registry.by_key(live.key) is live


def test_the_pictures_a_tab_keeps_are_bounded_in_bytes() -> None:
    episode = Episode()
    frame = Picture(png=b"x" * (2**20), shape=(1, 1))  # 1 MiB each
    for _ in range(100):
        episode.record_frame(frame)
    assert episode.frame_bytes <= MAX_RECORDED_BYTES
    assert len(episode.frames) == MAX_RECORDED_BYTES // 2**20


def test_every_response_carries_the_security_headers(client: TestClient) -> None:
    for route in ("/health", "/web/", "/docs", "/schema"):
        headers = client.get(route).headers
        policy = headers["content-security-policy"]
        assert "default-src 'self'" in policy and "object-src 'none'" in policy, route
        assert "frame-ancestors 'self' https://huggingface.co https://*.hf.space" in policy
        assert headers["x-content-type-options"] == "nosniff"
        assert "x-frame-options" not in headers  # it would keep a Space from embedding the app
