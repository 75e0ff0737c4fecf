"""The Harbor UI's "Add from the Hub" (openenv.harbor.web.hub_adds, .hub_tab): a listed dataset
is added in the background with its progress, served as a split (its broken tasks listed) and
removed again with its cached copy (not while a run on it is going); the datasets the server
started with stay; refused adds (not listed, not a Harbor layout, twice, too many) change
nothing; a failed download says why. Against the fake Hub (tests/fake_hub.py) in a fresh process
(``HF_ENDPOINT`` is read when huggingface_hub is imported). Then in a browser: a fake-Hub dataset
added from the page shows its task card. And an operator can turn adding off.

Screenshot: /tmp/work/shots/harbor_hub_add.png (1280x800)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

from fake_hub import FakeHub, harbor_task_files, hub_environ

from openenv.harbor.web.hub_adds import HubAdd
from openenv.harbor.web.hub_tab import list_html, parse_pick, size_text
from tests.conftest import serve

SHOTS = Path("/tmp/work/shots")
TOML = 'version = "1.0"\n[metadata]\ndifficulty = "hard"\ncategory = "hubcat"\n'


def task_files(folder: str, instruction: str = "Do it.") -> dict[str, str]:
    return harbor_task_files(folder, instruction, TOML)


FLOW = r"""
import json, sys
from openenv.core.harness.tasks import load_tasks, shipped_tasks
from openenv.core.harness.tasks.hub import cache_root
from openenv.harbor import Endpoints, HarborService
from openenv.harbor.web import hub_adds
from openenv.harbor.web.hub_adds import HubAddError, HubAdds

service = HarborService({"shipped": load_tasks(shipped_tasks())}, Endpoints())
adds = HubAdds(service)
out = {}

def refused(call, *args):
    try:
        call(*args)
    except HubAddError as exc:
        return str(exc)
    return None

out["not_listed"] = refused(adds.start, "org/ds")
out["listed"] = sorted((d.id, d.tasks, bool(d.problem)) for d in adds.listing(""))
out["plain"] = refused(adds.start, "org/plain")
seen = []
started = adds.start("org/ds")
out["first_state"] = started.status
out["twice"] = refused(adds.start, "org/ds")
done = adds.wait("org/ds", 120)
out["done"] = {"status": done.status, "tasks": done.tasks, "done": done.done,
               "total": done.total, "problems": [p.task for p in done.problems]}
out["splits"] = service.splits()
out["cards"] = [c["name"] for c in service.tasks("org/ds")]
out["version"] = adds.version
out["again"] = refused(adds.start, "org/ds")
out["remove_shipped"] = refused(adds.remove, "shipped")
out["cached"] = (cache_root() / "datasets--org--ds").is_dir()
from openenv.harbor.service import RunRecord
going = RunRecord(id="r1", split="org/ds", task_index=0, task="a", harness="h",
                  sandbox="process", status="running")
service.runs = lambda status=None: [going]
out["busy"] = refused(adds.remove, "org/ds")
del service.runs
adds.remove("org/ds")
out["after_remove"] = [s["name"] for s in service.splits()]
out["cache_gone"] = not (cache_root() / "datasets--org--ds").exists()
out["remove_twice"] = refused(adds.remove, "org/ds")
adds.start("org/broken")
failed = adds.wait("org/broken", 120)
out["broken"] = {"status": failed.status, "reason": failed.reason}
out["broken_served"] = "org/broken" in [s["name"] for s in service.splits()]
hub_adds.MAX_ADDED = 1
adds.start("org/ds")
adds.wait("org/ds", 120)
out["too_many"] = refused(adds.start, "org/other")
print(json.dumps(out))
"""


def test_a_listed_dataset_is_added_in_the_background_and_removed_again(
    hub: FakeHub, tmp_path: Path
) -> None:
    hub.add_harbor_dataset(
        "org/ds", {**task_files("tasks/a", "First."), **task_files("tasks/b"),
                   "tasks/half/task.toml": TOML, "README.md": "# two"}
    )  # fmt: skip
    hub.add_harbor_dataset("org/other", task_files("tasks/c"))
    hub.add_harbor_dataset("org/plain", {"README.md": "hi", "data.csv": "a\n"})
    hub.add_harbor_dataset("org/broken", {"tasks/x/task.toml": TOML})  # no task can be read
    done = subprocess.run(
        [sys.executable, "-c", FLOW], env=hub_environ(hub, tmp_path), capture_output=True,
        text=True, timeout=300,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    out: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    assert "not in the Hub listing" in out["not_listed"]
    assert ("org/ds", 3, False) in map(tuple, out["listed"])
    assert "cannot be added" in out["plain"] and "not a Harbor dataset" in out["plain"]
    assert out["first_state"] == "adding" and "being added already" in out["twice"]
    assert out["done"] == {"status": "added", "tasks": 2, "done": 8, "total": 8,
                           "problems": ["half"]}  # fmt: skip
    assert {"name": "org/ds", "n_tasks": 2} in out["splits"] and out["cards"] == ["a", "b"]
    assert out["version"] == 1 and "added already" in out["again"]
    assert "served from the start: it cannot be removed" in out["remove_shipped"]
    assert "1 run(s) on org/ds are still going: cancel them or wait" in out["busy"]
    assert out["cached"] and out["cache_gone"] and out["after_remove"] == ["shipped"]
    assert "was not added from the Hub" in out["remove_twice"]
    assert out["broken"]["status"] == "failed" and not out["broken_served"]
    assert "no task could be read" in out["broken"]["reason"]
    assert "no instruction.md" in out["broken"]["reason"]
    assert "1 datasets are added already" in out["too_many"]


def test_the_list_draws_progress_problems_and_escapes_what_the_hub_says() -> None:
    found = [{"id": "org/<b>x</b>", "tasks": 3, "size_bytes": 2048, "problem": "",
              "likes": 1, "downloads": 2},
             {"id": "org/plain", "tasks": 0, "size_bytes": 0, "problem": "not a <i>Harbor</i>",
              "likes": 0, "downloads": 0}]  # fmt: skip
    shown = list_html(found, [HubAdd("org/ds", done=3, total=8)])
    assert "3/8 files" in shown and "<progress" in shown
    assert "<b>x</b>" not in shown and "org/&lt;b&gt;x&lt;/b&gt;" in shown
    assert "3 task(s) · 2.0 KB" in shown and "cannot be added: not a &lt;i&gt;" in shown
    failed = list_html([], [HubAdd("org/y", status="failed", reason="<script>")])
    assert "Nothing added: &lt;script&gt;" in failed and "Dismiss" in failed
    assert "Try again" not in failed  # not in this page's listing
    assert parse_pick('["add", "org/ds"]') == ("add", "org/ds")
    for junk in ("", '["run", "org/ds"]', '["add", 3]', "x" * 5000, "[1]"):
        assert parse_pick(junk) == ("", "")
    assert size_text(5) == "5 B" and size_text(3 * 1024**3) == "3.0 GB"


def test_a_hub_dataset_added_from_the_page_shows_its_task_card(
    page, hub: FakeHub, tmp_path: Path
) -> None:
    hub.add_harbor_dataset(
        "org/hub-tasks", {**task_files("tasks/from-the-hub", "Made on the Hub."),
                          **task_files("tasks/second")}
    )  # fmt: skip
    hub.add_harbor_dataset("org/plain", {"README.md": "hi"})
    env = {**hub_environ(hub, tmp_path), "HF_HUB_OFFLINE": "0"}
    with serve("tests.harbor_web_apps:app", env=env, timeout=240) as url:
        page.set_viewport_size({"width": 1280, "height": 800})
        page.goto(url + "/web/")
        page.wait_for_selector("#hb-cards .hb-card")
        assert page.locator("#hb-cards .hb-card").count() == 2
        page.click("#hb-hub > button.label-wrap")  # opening it lists the datasets
        page.wait_for_selector("#hb-hub-list .hb-hub-row[data-id='org/hub-tasks'] .hb-hub-add")
        assert "not a Harbor dataset" in page.inner_text(
            "#hb-hub-list .hb-hub-row[data-id='org/plain']"
        )
        page.click("#hb-hub-list .hb-hub-row[data-id='org/hub-tasks'] .hb-hub-add")
        page.wait_for_selector("#hb-hub-list .hb-hub-row[data-id='org/hub-tasks'] .hb-hub-remove")
        assert "added: 2 task(s)" in page.inner_text("#hb-hub-list")
        page.wait_for_selector("#hb-cards .hb-card:has-text('from-the-hub')")
        assert page.locator("#hb-cards .hb-card").count() == 4
        page.click("#hb-f-split input")  # the dataset filter offers the added dataset
        page.get_by_role("option", name="org/hub-tasks", exact=True).click()
        page.wait_for_function("document.querySelectorAll('#hb-cards .hb-card').length === 2")
        page.wait_for_selector("[role=listbox]", state="hidden")  # the dropdown has closed
        page.locator("#hb-hub-list").evaluate("list => list.scrollIntoView()")
        SHOTS.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(SHOTS / "harbor_hub_add.png"))
        page.click("#hb-hub-list .hb-hub-row[data-id='org/hub-tasks'] .hb-hub-remove")
        page.wait_for_selector("#hb-hub-msg :text('Removed org/hub-tasks')")
        page.wait_for_function("document.querySelectorAll('#hb-cards .hb-card').length === 2")
        assert "from-the-hub" not in page.inner_text("#hb-cards")
        assert page.input_value("#hb-f-split input") == "all"
        assert page.console_errors == [] and page.external_requests == []


def test_an_operator_can_turn_adding_off(tmp_path: Path) -> None:
    import gradio as gr

    from openenv.core.harness.tasks import load_tasks, shipped_tasks
    from openenv.harbor import Endpoints, HarborService
    from openenv.harbor.web import page
    from openenv.harbor.web.downloads import Downloads
    from openenv.harbor.web.hub_adds import HubAdds

    service = HarborService({"shipped": load_tasks(shipped_tasks())}, Endpoints())
    try:
        for hub in (HubAdds(service), None):
            with gr.Blocks() as blocks:
                page.build(service, Downloads(service, tmp_path), None, hub)
            ids = {getattr(b, "elem_id", None) for b in blocks.blocks.values()}
            assert ("hb-hub-list" in ids) is (hub is not None) and "hb-cards" in ids
    finally:
        service.close()
