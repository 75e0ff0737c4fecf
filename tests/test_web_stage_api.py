"""The stage's API without a browser: the page Gradio serves carries the fast shell, the stage
routes (one API for the shell and the Gradio page) drive sessions through the playground's
controller, and Gradio adopts only a tab nobody else owns."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from fastapi.testclient import TestClient
from grid_world_env.server.environment import GridWorldEnvironment

from openenv.server import create_app
from openenv.web.shell.markup import SHELL_ID, insert_after_body_tag
from openenv.web.stage.messages import GONE, LOCKED_SHELL


@pytest.fixture(scope="module")
def small() -> Iterator[TestClient]:
    """A grid world server with room for two sessions."""
    app = create_app(GridWorldEnvironment, max_concurrent_envs=2)
    with TestClient(app) as client:
        yield client


def web_sessions(client: TestClient) -> int:
    return client.get("/web/sessions").json()["by_kind"].get("web", 0)


def controller(client: TestClient):
    return client.app.state.openenv.web["controller"]


def test_the_page_carries_the_shell_right_after_body(small):
    page = small.get("/web/").text
    body = page.index("<body")
    assert page.index(f'<div id="{SHELL_ID}">') == page.index(">", body) + 1
    assert page.count(f'id="{SHELL_ID}"') == 1
    shell = page[body : page.index("<gradio-app")]
    assert "↺ Reset</button>" in shell and "disabled>↺ Reset" not in shell
    assert "Grid World" in shell  # the env's header
    assert "http://" not in shell and "https://" not in shell  # nothing fetched from outside


def test_insert_after_body_tag_leaves_a_page_without_body_alone():
    assert insert_after_body_tag(b"<p>x</p>", b"<i>") == b"<p>x</p>"
    assert insert_after_body_tag(b'<body class="a">x', b"<i>") == b'<body class="a"><i>x'


def test_open_act_reset_close_drive_one_counted_session(small):
    opened = small.post("/web/stage/open", json={}).json()
    assert opened["ok"] and 'data-steps="0"' in opened["html"]
    key = opened["tab"]
    assert web_sessions(small) == 1
    moved = small.post("/web/stage/act", json={"tab": key, "index": 1}).json()  # Down
    assert moved["ok"] and 'data-steps="1"' in moved["html"] and not moved["done"]
    again = small.post("/web/stage/reset", json={"tab": key}).json()
    assert again["ok"] and 'data-steps="0"' in again["html"] and "tab" not in again
    assert web_sessions(small) == 1
    assert small.post("/web/stage/close", content=f'{{"tab": "{key}"}}').status_code == 204
    assert web_sessions(small) == 0
    gone = small.post("/web/stage/act", json={"tab": key, "index": 0}).json()
    assert gone == {"ok": False, "error": GONE}
    reopened = small.post("/web/stage/reset", json={"tab": key}).json()
    assert reopened["ok"] and reopened["tab"] != key  # a closed tab opens afresh
    small.post("/web/stage/close", json={"tab": reopened["tab"]})


def test_a_stage_call_naming_panels_brings_them_with_the_stage(small):
    key = small.post("/web/stage/open", json={}).json()["tab"]
    try:
        moved = small.post(
            "/web/stage/act", json={"tab": key, "index": 1, "panels": ["rewards", "raw"]}
        ).json()
        assert moved["ok"] and 'data-steps="1"' in moved["html"]
        assert set(moved["panels"]) == {"rewards", "raw"}
        assert 'data-steps="1"' in moved["panels"]["rewards"]  # the step just taken
        again = small.post(
            "/web/stage/act", json={"tab": key, "index": 1, "panels": ["rewards", "raw"]}
        ).json()
        assert 'data-steps="2"' in again["panels"]["rewards"] and "raw" in again["panels"]
        plain = small.post("/web/stage/act", json={"tab": key, "index": 1}).json()
        assert "panels" not in plain  # none asked, none sent
        many = small.post(
            "/web/stage/redraw", json={"tab": key, "panels": ["nope", 3, "rewards"] * 50}
        ).json()
        assert set(many["panels"]) <= {"rewards"}  # unknown names ignored, the list bounded
    finally:
        small.post("/web/stage/close", json={"tab": key})


def test_a_full_server_refuses_with_a_clear_message_and_keeps_no_tab(small):
    keys = [small.post("/web/stage/open", json={}).json()["tab"] for _ in range(2)]
    tabs = len(controller(small).tabs)
    full = small.post("/web/stage/open", json={}).json()
    assert not full["ok"] and "server is full" in full["error"]
    assert "tab" not in full and len(controller(small).tabs) == tabs
    for key in keys:
        small.post("/web/stage/close", json={"tab": key})
    assert web_sessions(small) == 0


def test_an_illegal_button_index_changes_nothing(small):
    key = small.post("/web/stage/open", json={}).json()["tab"]
    refused = small.post("/web/stage/act", json={"tab": key, "index": 99}).json()
    assert not refused["ok"] and "no longer available" in refused["error"]
    assert 'data-steps="0"' in refused["html"]
    small.post("/web/stage/close", json={"tab": key})


def test_malformed_requests_say_what_to_send(small):
    bad = small.post("/web/stage/act", content=b"{not json")
    assert bad.status_code == 400 and '{"tab": "<key>"}' in bad.json()["detail"]
    assert small.post("/web/stage/act", json=[1, 2]).status_code == 400


def test_gradio_adopts_a_live_shell_tab_once(small):
    ctl = controller(small)
    key = small.post("/web/stage/open", json={}).json()["tab"]
    owner = ctl.tabs.by_key(key).owner  # the visitor who opened it (the test client's address)
    assert ctl.adopt(key, "page-a", "192.0.2.1") is None  # a page of another visitor
    tab = ctl.adopt(key, "page-a", owner)
    assert tab is not None and ctl.tabs.by_hash("page-a") is tab
    assert ctl.adopt(key, "page-a", owner) is tab  # the same page asking again
    assert ctl.adopt(key, "page-b", owner) is None  # another page cannot take it over
    assert ctl.adopt("no-such-key", "page-c", owner) is None
    # once adopted, the page drives it through the same routes (one stage API)
    assert small.post("/web/stage/act", json={"tab": key, "index": 1}).json()["ok"] is True
    small.post("/web/stage/close", json={"tab": key})
    assert web_sessions(small) == 0 and ctl.tabs.by_hash("page-a") is None


def test_a_closed_shell_tab_is_not_adopted(small):
    ctl = controller(small)
    key = small.post("/web/stage/open", json={}).json()["tab"]
    small.post("/web/stage/close", json={"tab": key})
    assert ctl.adopt(key, "page-d", "testclient") is None


def test_a_locked_server_shows_no_working_shell_reset():
    app = create_app(GridWorldEnvironment, api_token="s3cret")
    with TestClient(app) as client:
        page = client.get("/web/").text
        shell = page[page.index(f'<div id="{SHELL_ID}">') : page.index("<gradio-app")]
        assert "disabled>↺ Reset</button>" in shell
        assert "token form appears" in shell
        refused = client.post("/web/stage/open", json={}).json()
        assert refused == {"ok": False, "error": LOCKED_SHELL}
        assert client.get("/web/sessions").json()["active"] == 0


def test_the_code_box_opens_with_the_envs_draft_escaped():
    """``Environment.action_draft``: the typed action starts with the env's text (KernRL: the
    task's template, then the last attempt), escaped; none, empty boxes."""
    import html

    from kernrl_env.server.environment import KernrlEnvironment

    class Tricky(KernrlEnvironment):
        def action_draft(self):
            return {"source": "</textarea><script>alert(1)</script>\nline 2", "other": 3}

    with TestClient(create_app(KernrlEnvironment)) as client:
        opened = client.post("/web/stage/open", json={}).json()
        tab = controller(client).tabs.by_key(opened["tab"])
        starter = tab.session.env._task.starter
        assert 'data-field="source"' in opened["html"]
        assert f">\n{html.escape(starter)}</textarea>" in opened["html"]
    with TestClient(create_app(Tricky)) as client:
        page = client.post("/web/stage/open", json={}).json()["html"]
        assert "<script>" not in page and "&lt;/textarea&gt;&lt;script&gt;" in page
    with TestClient(create_app(GridWorldEnvironment)) as client:  # buttons: no typed box
        assert "<textarea" not in client.post("/web/stage/open", json={}).json()["html"]
