"""The coding_tools playground in a real browser: the task is on the stage at first sight, a
fix made with the edit tool's form and a submission give reward 1.0, shown on the stage."""

from __future__ import annotations

import pytest

from tests.conftest import serve
from tests.servers import artifacts

pytestmark = pytest.mark.browser

STAGE = "#oe-stage .oe-stage"


@pytest.fixture(scope="module")
def coding_tools_url():
    with serve("coding_tools_env.server.app:app") as url:
        yield url


def pick_tool(page, name: str) -> None:
    page.click("#oe-tool-picker input")
    page.get_by_role("option", name=name, exact=True).click()
    page.wait_for_selector(f"#oe-tool-form-{name}", state="visible")


def test_fixing_the_bug_with_the_edit_form_and_submitting_scores_one(page, coding_tools_url):
    page.set_default_timeout(60_000)  # a Gradio page on a busy 2-core machine
    page.set_viewport_size({"width": 1280, "height": 800})
    page.goto(coding_tools_url + "/web/")
    page.wait_for_selector(f"{STAGE}[data-steps='0']")
    view = page.inner_text("#oe-stage .oe-view")
    assert "Task fix_add: /home/user/work/calc.py has a bug" in view
    assert "submit_solution" in page.inner_text(".oe-howto")
    page.click("#oe-stage .oe-act:has-text('read calc.py')")
    page.wait_for_selector(f"{STAGE}[data-steps='1']")
    assert "3\t    return a - b" in page.inner_text("#oe-stage .oe-view")
    page.get_by_role("tab", name="Tools").click()
    pick_tool(page, "edit")
    fields = {
        "file_path": "/home/user/work/calc.py",
        "old_string": "return a - b",
        "new_string": "return a + b",
    }
    for name, value in fields.items():
        page.fill(f"#oe-arg-edit-{name} :is(input, textarea)", value)
    page.click("#oe-tool-call")
    page.wait_for_selector(f"{STAGE}[data-steps='2']")
    assert "Applied 1 edit to /home/user/work/calc.py" in page.inner_text("#oe-tool-result")
    page.evaluate("window.scrollTo(0, 0)")
    page.screenshot(path=str(artifacts() / "coding_tools_1280x800.png"))
    pick_tool(page, "submit_solution")
    page.click("#oe-tool-call")
    page.wait_for_selector(f"{STAGE}[data-steps='3']")
    view = page.inner_text("#oe-stage .oe-view")
    assert "Submitted: 2/2 verify commands passed → reward 1" in view
    assert "reward=1" in page.inner_text("#oe-tool-result")
    assert page.console_errors == []
    assert page.external_requests == []
