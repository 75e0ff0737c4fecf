"""Comparing runs in the Harbor UI's Runs tab (openenv.harbor.web.compare): a visitor ticks two
to four runs and sees them side by side, differences marked, the best reward starred, their calls
aligned so the first difference shows; a fifth tick is refused with a note; a ticked run the
visitor may no longer see is left out and said. The drawing without a browser (escaping, bounds,
marks), then in a browser: two runs on the scripted TEST engine, ticked, compared while they run
and after, the ticks kept when a third run starts.

Screenshots go to /tmp/work/shots/harbor_compare_*.png (1280x800 and 390x844)."""

from __future__ import annotations

import json
from pathlib import Path
from types import SimpleNamespace

from playwright.sync_api import TimeoutError as PlaywrightTimeout

from openenv.core.harness.capture import CaptureResult
from openenv.core.harness.capture.graph import CaptureNode
from openenv.core.harness.capture.result import AppliedFix
from openenv.core.harness.rollout import RolloutResult
from openenv.harbor.service import RunRecord, ServiceError
from openenv.harbor.web import compare, runs_tab
from openenv.harbor.web.cards import runs_list_html
from openenv.harbor.web.timeline import MAX_CALLS
from tests.test_harbor_web import _open, _tab, harbor_url, runnable  # noqa: F401 (fixtures)

SHOTS = Path("/tmp/work/shots")
HOSTILE = "<script>alert(1)</script>"


def _call(seq: int, command: str, output: str | None = None, said: str = "") -> CaptureNode:
    """Call ``seq``: runs ``command`` (its output, when given, in the next call's messages)."""
    call = {
        "id": f"c{seq}",
        "type": "function",
        "function": {"name": "bash", "arguments": json.dumps({"command": command})},
    }
    before = [] if output is None else [{"role": "tool", "tool_call_id": f"c{seq - 1}",
                                         "content": output}]  # fmt: skip
    return CaptureNode(
        node_id=f"n{seq}", seq=seq, dialect="chat", parent_id=None if seq == 1 else f"n{seq - 1}",
        messages=before, reply={"role": "assistant", "content": said, "tool_calls": [call]},
    )  # fmt: skip


def _run(
    run_id: str, reward: float | None, commands: list[str], *, task: str = "hello-file",
    status: str = "ok", owner: str | None = None, **fields,
) -> RunRecord:  # fmt: skip
    nodes = [_call(i, c, "exit 0" if i > 1 else None) for i, c in enumerate(commands, start=1)]
    capture = CaptureResult(session_id=run_id, rollout_type="eval", capture_level="text",
                            nodes=nodes, fixes=fields.pop("fixes", []))  # fmt: skip
    finished = status in ("ok", "failed", "cancelled")
    result = RolloutResult(task=task, harness="mini-swe-agent", sandbox="process", status="ok",
                           reward=reward, capture=capture, timings={"harness_s": 2.0})  # fmt: skip
    given = {
        "id": run_id, "split": "shipped", "task_index": 1, "task": task,
        "harness": "mini-swe-agent", "sandbox": "process", "status": status, "owner": owner,
        "model": {"kind": "test", "label": "[EVAL ONLY]", "capture_level": "text"},
        "started_at": 100.0, "ended_at": 112.5 if finished else None,
        "result": result if finished else None,
    }  # fmt: skip
    return RunRecord(**{**given, **fields})


def _entry(record: RunRecord) -> tuple[RunRecord, CaptureResult | None]:
    capture = record.result.capture if record.result else None
    return record, capture


def _row(drawn: str, label: str) -> str:
    """The table row whose label starts with ``label``."""
    start = drawn.index(f'<th scope="row">{label}')
    return drawn[drawn.rindex("<tr", 0, start) : drawn.index("</tr>", start)]


# -- drawing, without a browser ------------------------------------------------------------


def test_what_a_task_or_an_agent_wrote_is_escaped_in_every_column() -> None:
    hostile = _run("aaaa000000000001", 1.0, [f"echo '{HOSTILE}'"], task=HOSTILE,
                   reason="<img src=x onerror=alert(2)>", harness="<b>agent</b>",
                   model={"kind": "hf", "model": "<i>m</i>", "provider": "<u>p</u>"},
                   fixes=[AppliedFix(name="<s>fix</s>", effect="x")])  # fmt: skip
    hostile.result.capture.nodes.append(_call(2, "ls", output=json.dumps({"output": "<hi>"})))
    drawn = compare.compare_html([_entry(hostile), _entry(_run("bbbb000000000002", 0.0, ["ls"]))])
    for raw in ("<script", "<img", "<b>agent", "<i>m", "<u>p", "<s>fix", "<hi>"):
        assert raw not in drawn
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in drawn  # the task, and the command
    assert (
        "Hugging Face Inference Providers · &lt;i&gt;m&lt;/i&gt; · provider &lt;u&gt;p&lt;/u&gt;"
        in drawn
    )
    assert "→ &lt;hi&gt;" in drawn  # the tool's output, first line
    listed = runs_list_html([hostile], ticked=[hostile.id])
    assert "<script" not in listed and f'data-tick="{hostile.id}" checked' in listed


def test_differences_are_marked_the_best_reward_starred_and_the_first_difference_flagged():
    same = ["cat hello.txt", "printf 'Hello' > hello.txt"]
    good = _run("aaaa000000000001", 1.0, same)
    bad = _run("bbbb000000000002", 0.0, [same[0], "rm -rf hello.txt", "echo gave up"],
               status="failed", reason="tests failed")  # fmt: skip
    drawn = compare.compare_html([_entry(good), _entry(bad)])
    assert "Comparing 2 runs" in drawn and drawn.count('<th scope="col">') == 2
    assert "hb-cmp-diff" not in _row(drawn, "task") and "hb-cmp-diff" not in _row(drawn, "agent")
    for label in ("reward", "status", "call 2"):
        assert "hb-cmp-diff" in _row(drawn, label)
    assert "★ 1 best" in _row(drawn, "reward") and "★ 0" not in drawn
    assert "tests failed" in _row(drawn, "status")
    assert "hb-cmp-fork" in _row(drawn, "call 2 · first difference")
    assert "hb-cmp-diff" not in _row(drawn, "call 1") and "echo gave up" in _row(drawn, "call 3")
    assert "hb-cmp-diff" not in _row(drawn, "wall time")  # times always differ a little
    assert "12.5 s" in _row(drawn, "wall time") and "agent 2.0 s" in _row(drawn, "phases")
    assert "★" not in compare.compare_html([_entry(good), _entry(good)])  # a tie: no best


def test_a_live_run_says_it_is_running_and_long_runs_are_bounded() -> None:
    live = _run("aaaa000000000001", None, ["ls"] * (MAX_CALLS + 5), status="running")
    live_capture = _run("x", None, ["ls"] * (MAX_CALLS + 5)).result.capture
    drawn = compare.compare_html([(live, live_capture), _entry(_run("bbbb000000000002", 1, []))])
    assert f"call {MAX_CALLS}" in drawn and f"call {MAX_CALLS + 1}" not in drawn
    assert "5 more call(s)" in drawn and "(no model call captured)" in drawn
    assert "after the run ends" in _row(drawn, "trace checks")
    long = compare.steps(_run("c", 1, ["x" * 5000 + "\nsecond line"]).result.capture)
    assert len(long) == 1 and len(long[0]) == compare.LINE_CHARS and long[0].endswith("…")
    assert "second" not in long[0]


def test_one_run_or_five_are_said_not_compared_and_a_fifth_tick_is_refused() -> None:
    runs = [_entry(_run(f"{i:016x}", 1.0, ["ls"])) for i in range(5)]
    assert "Tick one to three more runs" in compare.compare_html(runs[:1])
    assert "hb-cmp" not in compare.compare_html(runs[:1]).replace("hb-cmp-note", "")
    five = compare.compare_html(runs)
    assert "5 runs ticked" in five and "At most 4" in five and "<table" not in five
    assert compare.compare_html([]) == ""
    ids, note = [], ""
    for i in range(5):
        ids, note = compare.tick(ids, f"r{i}", True)
    assert ids == ["r0", "r1", "r2", "r3"] and note == compare.TOO_MANY  # refused, not rotated
    assert compare.tick(ids, "r1", True) == (ids, "")  # ticked twice: once
    assert compare.tick(ids, "r1", False) == (["r0", "r2", "r3"], "")
    assert compare.tick(ids, "", False) == ([], "")  # untick all
    assert "At most 4" in compare.ticks_head(
        4, note
    ) and "see the comparison" in compare.ticks_head(2)


class _Service:
    """The runs a HarborService keeps, each seen by its owner (None: the operator's)."""

    def __init__(self, *records: RunRecord) -> None:
        self.kept = {r.id: r for r in records}

    def run(self, run_id: str, viewer: str | None = None) -> RunRecord:
        record = self.kept.get(run_id)
        if record is None or not record.seen_by(viewer):
            raise ServiceError(f"no run {run_id!r} (unknown, or dropped as old)")
        return record

    def capture(self, run_id: str) -> CaptureResult | None:
        return _entry(self.run(run_id))[1]


def test_a_ticked_run_the_visitor_may_not_see_is_left_out_and_said() -> None:
    mine = [_run(f"aaaa00000000000{i}", 1.0, ["ls"], owner="me") for i in (1, 2)]
    theirs = _run("ffff000000000009", 0.0, ["cat /secret"], owner="them", task="their-task")
    ui = SimpleNamespace(service=_Service(*mine, theirs))
    ticks = {"ids": [mine[0].id, theirs.id, mine[1].id, "dropped00000000"], "note": ""}
    drawn, sent, live = runs_tab.compared(ui, ticks, "", "me")
    assert drawn == sent and not live and "Comparing 2 runs" in drawn
    assert "2 ticked run(s) left out" in drawn
    assert theirs.id not in drawn and "their-task" not in drawn and "/secret" not in drawn
    again, _, _ = runs_tab.compared(ui, ticks, sent, "me")
    assert not isinstance(again, str)  # unchanged: skipped, not sent again
    refused = runs_tab.ticked(ui, ticks, theirs.id, True, "me")
    assert refused == {"ids": [mine[0].id, mine[1].id], "note": runs_tab.GONE}
    ui.service.kept[mine[1].id] = mine[1].model_copy(update={"status": "running", "result": None})
    assert runs_tab.compared(ui, ticks, sent, "me")[2]  # a live run keeps the timer ticking


# -- the page, in a browser -----------------------------------------------------------------


def _shot(page, name: str) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / f"harbor_compare_{name}.png"))


def _start(page, task: str, listed: int) -> None:
    """Start ``task`` on the TEST engine from its card; the Runs tab opens, ``listed`` runs."""
    _tab(page, "Tasks")
    page.click(f"#hb-cards .hb-card:has-text('{task}')")
    page.wait_for_selector(f"#hb-task h3:has-text('{task}')")
    page.click("#hb-run-this")
    page.wait_for_selector("#hb-rc-go")
    page.get_by_label("TEST engine", exact=False).check()
    page.click("#hb-rc-go")
    page.wait_for_function(
        f"document.querySelectorAll('#hb-rn-list .hb-runitem').length === {listed}"
    )


def test_two_runs_ticked_are_compared_side_by_side(page, harbor_url, runnable) -> None:  # noqa: F811
    _open(page, harbor_url)
    _start(page, "hello-file", 1)
    _start(page, "fix-add", 2)
    rows = page.locator("#hb-rn-list .hb-runitem")
    assert rows.count() == 2
    page.wait_for_selector("#hb-rn-list :text('Tick two to four runs to compare them.')")
    _tick(page, rows.nth(0).locator("input[data-tick]"), 1)
    page.wait_for_selector("#hb-rn-list :text('1 of 4 runs ticked')")
    page.wait_for_selector("#hb-rn-compare :text('Tick one to three more runs')")
    _tick(page, rows.nth(1).locator("input[data-tick]"), 2)
    page.wait_for_selector("#hb-rn-compare table.hb-cmp")  # compared while they run
    _shot(page, "live_desktop")
    box = page.locator("#hb-rn-compare")
    assert box.locator('th[scope="col"]').count() == 2
    page.wait_for_function(
        "document.querySelectorAll('#hb-rn-compare th[scope=col] .hb-ok').length === 2",
        timeout=400_000,
    )
    _wait_ticked(page, 2)  # the ticks lived through the live refreshes
    reward = box.locator("tr:has(th:text-is('reward')) td")
    assert [reward.nth(i).inner_text() for i in range(2)] == ["1", "1"]
    text = box.inner_text()
    assert "hello-file" in text and "fix-add" in text and "TEST engine" in text
    differ = [t.split()[0] for t in box.locator("tr.hb-cmp-diff > th").all_inner_texts()]
    assert "task" in differ and "agent" not in differ  # marked: the tasks, not the agents
    assert "printf 'Hello, Harbor!\\n' > hello.txt" in text  # a call, in its column
    assert "call 1 · first difference" in text
    page.set_viewport_size({"width": 1280, "height": 800})
    box.evaluate("e => e.scrollIntoView()")
    _shot(page, "desktop")
    page.set_viewport_size({"width": 390, "height": 844})
    box.evaluate("e => e.scrollIntoView()")
    _shot(page, "phone")
    assert page.evaluate("document.documentElement.scrollWidth") <= 390  # the page does not
    scroll = box.locator(".hb-cmp-scroll")
    assert scroll.evaluate("e => e.scrollWidth > e.clientWidth")  # the table does: not squashed
    assert box.locator('th[scope="col"]').first.bounding_box()["width"] >= 180
    page.set_viewport_size({"width": 1280, "height": 800})

    for listed in (3, 4, 5):  # three more runs from the run card, cancelled: the ticks stay
        _start(page, "hello-file", listed)
        _wait_ticked(page, 2)
        page.click("#hb-rn-cancel")
        page.wait_for_selector('#hb-rn-view .hb-run[data-status="cancelled"]', timeout=120_000)
    boxes = page.locator("#hb-rn-list input[data-tick]:not(:checked)")
    for ticked in (3, 4):
        _tick(page, boxes.first, ticked)
    page.wait_for_function("document.querySelectorAll('#hb-rn-compare th[scope=col]').length === 4")
    boxes.first.click()  # a fifth: refused, said, unticked
    page.wait_for_selector("#hb-rn-list .hb-cmp-note:has-text('At most 4 runs compare at once')")
    _wait_ticked(page, 4)
    page.set_viewport_size({"width": 1280, "height": 800})
    _shot(page, "refused_desktop")
    box.evaluate("e => e.scrollIntoView()")
    _shot(page, "four_desktop")
    page.set_viewport_size({"width": 390, "height": 844})
    page.locator("#hb-rn-list").evaluate("e => e.scrollIntoView()")
    _shot(page, "refused_phone")
    box.evaluate("e => e.scrollIntoView()")
    _shot(page, "four_phone")
    opener = box.locator("button[data-pick]").last  # a column's "open ▸": that run below
    run_id = opener.get_attribute("data-pick")
    opener.click()
    page.wait_for_selector(f"#hb-rn-view code.hb-id:text-is('{run_id}')")
    box.locator("button[data-untick='']").click()  # "✕ untick all"
    page.wait_for_selector("#hb-rn-compare table", state="detached")
    _wait_ticked(page, 0)
    assert page.console_errors == []


def _tick(page, box, count: int, tries: int = 5) -> None:
    """Tick ``box`` until the server's list shows ``count`` ticked: a live list's refresh that
    left before the tick arrived can redraw it unticked, once (the next one has it)."""
    for _ in range(tries):
        if not box.is_checked():
            box.click()
        try:
            _wait_ticked(page, count, timeout=10_000)
            return
        except PlaywrightTimeout:
            continue
    _wait_ticked(page, count)


def _wait_ticked(page, count: int, timeout: float = 30_000) -> None:
    page.wait_for_function(
        f"document.querySelectorAll('#hb-rn-list input[data-tick]:checked').length === {count}",
        timeout=timeout,
    )
