"""Agent World Model in a real browser: the scenario, its task and its tables are on the first
screen; the task done through the Tools tab's forms changes the tables drawn, and the Verify
button scores it complete (reward 1)."""

from __future__ import annotations

import re

import pytest
from agent_world_model_env.server.oracle import solution
from agent_world_model_env.server.worlds import SCENARIOS

from tests.servers import artifacts, catalog_serving

pytestmark = pytest.mark.browser

STAGE = "#oe-stage .oe-stage"


@pytest.fixture(scope="module")
def catalog(tmp_path_factory):
    """The catalog app serving only this env: one server process for the module."""
    with catalog_serving(
        tmp_path_factory.mktemp("agent_world_model"), ["agent_world_model_env"]
    ) as url:
        yield url


def call_from_tools_tab(page, tool: str, arguments: dict, steps: int) -> None:
    page.click("#oe-tool-picker input")
    page.get_by_role("option", name=tool, exact=True).click()
    page.wait_for_selector(f"#oe-tool-form-{tool}", state="visible")
    for name, value in arguments.items():
        page.fill(f"#oe-arg-{tool}-{name} :is(input, textarea)", str(value))
    page.click("#oe-tool-call")
    page.wait_for_selector(f"{STAGE}[data-steps='{steps}']")
    page.wait_for_selector("#oe-tool-result .oe-tool-out")
    assert f"✓ {tool}" in page.inner_text("#oe-tool-result")


def test_a_task_done_with_the_tool_forms_verifies_complete(page, catalog):
    page.set_viewport_size({"width": 1280, "height": 800})
    page.set_default_timeout(60_000)  # a Gradio page on a busy 2-core runner
    page.goto(catalog + "/envs/agent_world_model/web/")
    page.wait_for_selector(f"{STAGE}[data-steps='0'] svg")
    stage = " ".join(page.inner_text("#oe-stage").split())
    found = re.search(r"Scenario (\w+) .*?Task (\d+): ", stage)
    assert found and "Not verified yet: call verify" in stage
    scenario, task_idx = SCENARIOS[found.group(1)], int(found.group(2))
    assert scenario.spec.tasks[task_idx].prompt[:40] in stage
    assert f"{scenario.spec.tables[0].name} (" in stage  # the tables are drawn
    page.get_by_role("tab", name="Tools").click()
    plan = solution(scenario, task_idx)[:-1]  # the changes; verify by the stage's button
    for i, step in enumerate(plan, start=1):
        call_from_tools_tab(page, step["tool_name"], step["arguments"], i)
    page.get_by_role("button", name="Verify (code)").click()
    page.wait_for_selector(f"{STAGE}[data-steps='{len(plan) + 1}']")
    stage = " ".join(page.inner_text("#oe-stage").split())
    assert "Verify (code): ✓ complete" in stage
    assert "all" in stage and "expected change(s), nothing else" in stage
    page.evaluate("window.scrollTo(0, 0)")  # the first screen, as a visitor sees it
    page.screenshot(path=str(artifacts() / "agent_world_model_1280x800.png"))
    assert page.console_errors == []
    assert page.external_requests == []
