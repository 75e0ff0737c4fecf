"""The Harbor UI at /web (openenv.harbor.web): a visitor lands on the task cards, filters them,
opens a task (its instruction and files, never its solution), runs it from the run card on the
scripted TEST engine with mini-swe-agent in the process sandbox, follows the run to "ok" with
reward 1 and sees the tool call in its timeline; a wrong endpoint is said clearly. Plus the
drawing's escaping and bounds, without a browser.

Screenshots go to /tmp/work/shots/harbor_*.png (1280x800 and 390x844)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from openenv.core.harness.capture import CaptureResult
from openenv.core.harness.capture.graph import CaptureNode
from openenv.harbor.service import RunRecord
from openenv.harbor.web import cards as draw
from openenv.harbor.web.timeline import MAX_CALLS, checks, run_html, timeline_html
from tests.conftest import free_port, serve

SHOTS = Path("/tmp/work/shots")
SIZES = {"desktop": (1280, 800), "phone": (390, 844)}
CARDS = [
    {"name": "fix-add", "split": "shipped", "index": 0, "category": "debugging",
     "difficulty": "easy", "tags": ["python", "test"], "instruction_preview": "calc.py has a bug"},
    {"name": "hello-file", "split": "shipped", "index": 1, "category": "file-operations",
     "difficulty": "easy", "tags": ["test"], "instruction_preview": "Create hello.txt"},
    {"name": "<b>x</b>", "split": "mine", "index": 0, "category": "web", "difficulty": "hard",
     "tags": [], "instruction_preview": "<script>alert(1)</script>"},
]  # fmt: skip


# -- drawing, without a browser ------------------------------------------------------------


def test_cards_filter_by_dataset_category_difficulty_tag_and_words() -> None:
    names = lambda kept: [c["name"] for c in kept]  # noqa: E731
    assert names(draw.filter_cards(CARDS, tag="python")) == ["fix-add"]
    assert names(draw.filter_cards(CARDS, split="mine")) == ["<b>x</b>"]
    assert names(draw.filter_cards(CARDS, difficulty="easy", category="file-operations")) == [
        "hello-file"
    ]
    assert names(draw.filter_cards(CARDS, query="HELLO create")) == ["hello-file"]
    assert draw.filter_cards(CARDS, query="nothing-like-it") == []
    assert draw.facet_values(CARDS, "tags") == ["all", "python", "test"]
    shown = draw.cards_html(draw.filter_cards(CARDS), 3, ("shipped", 1))
    assert "<script>" not in shown and "&lt;script&gt;" in shown and "<b>x</b>" not in shown
    assert "No task matches" in draw.cards_html([], 3, None)


def test_task_keys_round_trip_and_junk_is_refused() -> None:
    assert draw.parse_task_key(draw.task_key('a/b"c', 4)) == ('a/b"c', 4)
    for junk in ("", "[1, 2]", '["a", -1]', '["a", true]', "{}", "x" * 5000):
        assert draw.parse_task_key(junk) is None


def _node(seq: int, reply: dict, messages: list | None = None) -> CaptureNode:
    return CaptureNode(
        node_id=f"n{seq}", seq=seq, dialect="chat", parent_id=None if seq == 1 else f"n{seq - 1}",
        linked_by="root" if seq == 1 else "tokens", messages=messages or [], reply=reply,
    )  # fmt: skip


def _capture(nodes: list[CaptureNode], rollout_type: str = "eval") -> CaptureResult:
    return CaptureResult(
        session_id="s", rollout_type=rollout_type, capture_level="text", nodes=nodes
    )


def test_the_timeline_escapes_what_the_agent_wrote_and_pairs_tool_outputs() -> None:
    command = json.dumps({"command": "echo <b>hi</b>"})
    call = {"id": "c1", "type": "function", "function": {"name": "bash", "arguments": command}}
    first = _node(1, {"role": "assistant", "content": "<img src=x onerror=alert(1)>",
                      "reasoning_content": "let me think", "tool_calls": [call]},
                  [{"role": "user", "content": "Do <it>"}])  # fmt: skip
    tool = {"role": "tool", "tool_call_id": "c1", "content": '{"returncode": 0, "output": "<hi>"}'}
    second = _node(2, {"role": "assistant", "content": "All done </pre>"}, [tool])
    shown = timeline_html(_capture([first, second]))
    assert "<img" not in shown and "&lt;img src=x" in shown
    assert "echo &lt;b&gt;hi&lt;/b&gt;" in shown and "exit 0\n&lt;hi&gt;" in shown
    assert "thinking" in shown and "let me think" in shown and "Do &lt;it&gt;" in shown
    assert "final answer" in shown and "All done &lt;/pre&gt;" in shown


def test_the_timeline_is_bounded_and_says_what_it_left_out() -> None:
    nodes = [_node(i, {"role": "assistant", "content": "x" * 10_000}) for i in range(1, 60)]
    shown = timeline_html(_capture(nodes))
    assert shown.count("hb-call") == MAX_CALLS
    assert f"{59 - MAX_CALLS} more model call(s) not shown" in shown
    assert "more characters not shown" in shown


def test_an_eval_runs_checks_say_it_has_no_training_trace() -> None:
    record = RunRecord(id="0123456789abcdef", split="s", task_index=0, task="t",
                       harness="mini-swe-agent", sandbox="process", status="failed",
                       reason="engine <gone>")  # fmt: skip
    capture = _capture([_node(1, {"role": "assistant", "content": "hi"})])
    found = {name: (passed, detail) for name, passed, detail in checks(record, capture)}
    assert found["capture level"][0] is False and "[EVAL ONLY]" in found["capture level"][1]
    assert found["training trace"] == (None, "eval capture: no training trace")
    assert "engine &lt;gone&gt;" in run_html(record, capture)


# -- the page, in a browser -----------------------------------------------------------------


@pytest.fixture(scope="module")
def harbor_url() -> Iterator[str]:
    with serve("tests.harbor_web_apps:app", timeout=240) as url:
        yield url


@pytest.fixture(scope="module")
def runnable() -> None:
    from openenv.core.harness.harnesses import MiniSweAgent, install_harness
    from openenv.sandbox.isolation import SandboxUnavailable, isolation

    try:
        isolation(network=True)
    except SandboxUnavailable as exc:
        pytest.skip(f"no process sandbox here: {exc}")
    if MiniSweAgent().problem():
        install_harness("mini-swe-agent")


def _shot(page, name: str) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / f"harbor_{name}.png"))


def _open(page, url: str) -> None:
    page.set_viewport_size({"width": 1280, "height": 800})
    page.goto(url + "/web/")
    page.wait_for_selector("#hb-cards .hb-card")


def _tab(page, name: str) -> None:
    page.get_by_role("tab", name=name).click()


def _type(page, selector: str, text: str) -> None:
    """Type as a visitor does (Gradio's input event follows keystrokes, not a filled value)."""
    page.click(selector)
    page.keyboard.press("Control+A")
    page.keyboard.type(text)


def _choose(page, elem_id: str, option: str) -> None:
    page.click(f"#{elem_id} input")
    page.get_by_role("option", name=option, exact=True).click()


def test_the_first_screen_is_the_harbor_ui_with_its_four_tabs(page, harbor_url) -> None:
    _open(page, harbor_url)
    for size, (width, height) in SIZES.items():
        page.set_viewport_size({"width": width, "height": height})
        for name in ("Tasks", "Run a task", "Runs", "Setup"):
            assert page.get_by_role("tab", name=name).is_visible()
        assert page.locator("#hb-cards .hb-card").count() == 2
        assert page.locator("#oe-stage").count() == 0  # the generic playground stays folded
        _shot(page, f"tasks_{size}")
    page.click("#oe-playground-fold > button.label-wrap")  # the generic playground, unfolded
    page.wait_for_selector("#oe-stage .oe-stage[data-steps]")  # an episode drawn
    page.wait_for_selector("#oe-tabs")
    assert page.console_errors == [] and page.external_requests == []


def test_the_cards_filter(page, harbor_url) -> None:
    _open(page, harbor_url)
    _choose(page, "hb-f-tag", "python")
    page.wait_for_function("document.querySelectorAll('#hb-cards .hb-card').length === 1")
    assert "fix-add" in page.inner_text("#hb-cards")
    _choose(page, "hb-f-tag", "all")
    _type(page, "#hb-query textarea", "no-such-task")
    page.wait_for_selector("#hb-cards :text('No task matches')")
    _type(page, "#hb-query textarea", "hello")
    page.wait_for_function("document.querySelectorAll('#hb-cards .hb-card').length === 1")
    assert "hello-file" in page.inner_text("#hb-cards")


def test_a_task_shows_its_instruction_and_files_not_its_solution(page, harbor_url):
    _open(page, harbor_url)
    page.click("#hb-cards .hb-card:has-text('hello-file')")
    page.wait_for_selector("#hb-task h3:has-text('hello-file')")
    task = page.inner_text("#hb-task")
    assert "Create a file named hello.txt" in task and "timeout_sec" in task
    files = page.inner_text("#hb-files-box")
    assert "tests/test.sh" in files and "environment/Dockerfile" in files
    assert "solution" not in files and "solve.sh" not in files
    assert "printf" not in page.inner_text("#hb-detail")  # the solution's command
    _shot(page, "task_desktop")
    page.click("#hb-files-box .hb-file:has-text('tests/test.sh')")
    page.wait_for_selector("#hb-viewer .cm-content:has-text('reward.txt')")
    _shot(page, "viewer_desktop")
    page.click("#hb-viewer-close")
    page.wait_for_selector("#hb-viewer", state="hidden")
    page.set_viewport_size({"width": 390, "height": 844})  # the columns stack: the task below
    page.click("#hb-cards .hb-card:has-text('fix-add')")
    page.wait_for_selector("#hb-task h3:has-text('fix-add')")
    page.wait_for_function("document.getElementById('hb-detail').getBoundingClientRect().top < 400")
    _shot(page, "task_phone")


def test_a_run_on_the_test_engine_reaches_ok_and_shows_its_tool_call(
    page, harbor_url, runnable
) -> None:
    _open(page, harbor_url)
    page.click("#hb-cards .hb-card:has-text('hello-file')")
    page.click("#hb-run-this")
    page.wait_for_selector("#hb-rc-go")
    assert page.get_by_label("TEST engine", exact=False).is_checked()  # no server endpoint
    assert page.input_value("#hb-rc-harness input").startswith("mini-swe-agent")
    _shot(page, "card_desktop")
    page.click("#hb-rc-go")
    page.wait_for_selector("#hb-rn-view .hb-run")  # the Runs tab opens on the run
    page.wait_for_selector(
        '#hb-rn-view .hb-run[data-status="running"], #hb-rn-view .hb-run[data-status="ok"]'
    )
    _shot(page, "run_live_desktop")
    page.wait_for_selector('#hb-rn-view .hb-run[data-status="ok"]', timeout=400_000)
    view = page.inner_text("#hb-rn-view")
    assert "reward 1" in view and "TEST engine" in view
    assert "printf 'Hello, Harbor!\\n' > hello.txt" in view  # the tool call's input
    assert "Trace checks" in view and "training trace" in view
    links = page.locator("#hb-rn-links a")
    assert links.count() == 3  # result, training trace (a [TRAIN] capture), capture audit
    for index, key in enumerate(("reward", "turns", "nodes")):
        href = links.nth(index).get_attribute("href")
        assert href.startswith("../harbor_env/runs/")
        assert key in page.request.get(f"{harbor_url}/web/{href}").json()
    assert page.locator("#hb-rn-cancel").is_hidden()
    page.set_viewport_size({"width": 1280, "height": 800})
    page.locator("#hb-rn-view .hb-call").first.scroll_into_view_if_needed()
    _shot(page, "run_desktop")
    page.set_viewport_size({"width": 390, "height": 844})
    _shot(page, "run_phone")
    _tab(page, "Run a task")  # a second run, cancelled while it runs
    page.click("#hb-rc-go")
    page.wait_for_selector("#hb-rn-cancel:visible")
    page.click("#hb-rn-cancel")
    page.wait_for_selector('#hb-rn-view .hb-run[data-status="cancelled"]', timeout=120_000)
    assert page.locator("#hb-rn-list .hb-runrow").count() == 2
    _tab(page, "Setup")
    page.wait_for_selector("#hb-setup table")
    assert "mini-swe-agent" in page.inner_text("#hb-setup")
    _shot(page, "setup_phone")


def test_an_endpoint_that_does_not_answer_is_said_clearly(page, harbor_url) -> None:
    _open(page, harbor_url)
    _tab(page, "Run a task")
    page.get_by_label("Your own endpoint", exact=False).check()
    _type(page, "#hb-rc-url textarea", f"http://127.0.0.1:{free_port()}/v1")
    page.click("#hb-rc-go")
    page.wait_for_selector("#hb-rc-msg .oe-error")
    message = page.inner_text("#hb-rc-msg")
    assert "Nothing was started: nothing answers at http://127.0.0.1:" in message
    _tab(page, "Runs")
    page.wait_for_selector("#hb-rn-list")
    assert "hb-failed" not in page.inner_html("#hb-rn-list")  # no run was queued for it
    _shot(page, "url_error_desktop")


def test_a_finished_runs_files_are_written_once_and_dropped_runs_forgotten(tmp_path) -> None:
    from openenv.core.harness.rollout import RolloutResult
    from openenv.harbor.web.downloads import Downloads

    class Service:  # the runs the service still keeps
        kept: list[RunRecord] = []

        def runs(self) -> list[RunRecord]:
            return self.kept

    capture = _capture([_node(1, {"role": "assistant", "content": "hi"})])
    result = RolloutResult(task="t", harness="h", sandbox="process", status="ok", reward=1.0,
                           capture=capture)  # fmt: skip
    record = RunRecord(id="00aa11bb22cc33dd", split="s", task_index=0, task="a/../b",
                       harness="h", sandbox="process", status="ok", result=result)  # fmt: skip
    service = Service()
    service.kept = [record]
    downloads = Downloads(service, tmp_path)  # type: ignore[arg-type]
    files = downloads.files(record)
    assert files["training_trace"] is None  # an eval capture has none
    assert files["result"] is not None and files["result"].parent == tmp_path / record.id
    assert json.loads(files["result"].read_text())["result"]["reward"] == 1.0
    assert json.loads(files["capture"].read_text())["nodes"][0]["node_id"] == "n1"
    running = record.model_copy(update={"id": "ffee", "status": "running"})
    assert downloads.files(running) == {"result": None, "training_trace": None, "capture": None}
    other = record.model_copy(update={"id": "99887766554433aa"})
    service.kept = [other]
    downloads.files(other)
    assert not (tmp_path / record.id).exists()  # dropped by the service: its files too
