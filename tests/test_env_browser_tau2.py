"""τ²-bench in a real browser: the call, the seats and what to do are on the first screen; an
agent cancels a retail order from the Tools tab and closes the call (reward 1); a visitor plays
the customer against the scripted agent with the quick-reply buttons (reward 1)."""

from __future__ import annotations

import pytest
from stagewait import click_reset

from tests.conftest import unfold
from tests.servers import artifacts, serve

pytestmark = pytest.mark.browser

STAGE = "#oe-stage .oe-stage"


@pytest.fixture(scope="module")
def url():
    with serve("tau2_env.server.app:app", timeout=240) as base:
        yield base


def pick(page, field: str, option: str) -> None:
    """Choose ``option`` of a few-choice field (drawn as radio buttons)."""
    page.locator(field).get_by_label(option, exact=True).check()


def reset(page, **options: str) -> None:
    unfold(page, "oe-options", "#oe-opt-domain")
    pick(page, "#oe-opt-domain", options["domain"])
    pick(page, "#oe-opt-seat", options["seat"])
    page.fill("#oe-opt-task_id :is(input, textarea)", options["task_id"])
    page.fill("#oe-seed input, #oe-seed textarea", "1")
    click_reset(page)
    page.wait_for_selector(f"{STAGE}[data-steps='0']:has-text('task {options['task_id']}')")


def click_quick(page, label: str, steps: int) -> str:
    page.click(f"#oe-stage .oe-act:has-text({label!r})")
    page.wait_for_selector(f"{STAGE}[data-steps='{steps}']")
    return page.inner_text("#oe-stage")


def test_an_agent_cancels_an_order_from_the_tools_tab_and_scores(page, url):
    page.set_viewport_size({"width": 1280, "height": 800})
    page.goto(url + "/web/")
    page.wait_for_selector(f"{STAGE}[data-steps='0'] svg")
    assert "Help the customer" in page.inner_text("#oe-header")  # what to do, up front
    reset(page, domain="retail", seat="agent", task_id="88")
    stage = page.inner_text("#oe-stage")
    assert "you: the agent" in stage and "book shelf" in stage and "records changed" in stage
    page.screenshot(path=str(artifacts() / "tau2_1280x800.png"))
    page.get_by_role("tab", name="Tools").click()
    page.click("#oe-tool-picker input")
    page.get_by_role("option", name="cancel_pending_order", exact=True).click()
    page.wait_for_selector("#oe-tool-form-cancel_pending_order", state="visible")
    page.fill("#oe-arg-cancel_pending_order-order_id :is(input, textarea)", "#W8835847")
    pick(page, "#oe-arg-cancel_pending_order-reason", "ordered by mistake")
    page.click("#oe-tool-call")
    page.wait_for_selector(f"{STAGE}[data-steps='1']")
    assert "✓ cancel_pending_order" in page.inner_text("#oe-tool-result")
    assert "orders/#W8835847" in page.inner_text("#oe-stage")
    stage = click_quick(page, "Anything else?", 2)
    assert "Reward 1" in stage and "database 1" in stage
    assert page.console_errors == []
    assert page.external_requests == []


def test_a_visitor_plays_the_customer_against_the_scripted_agent(page, url):
    page.goto(url + "/web/")
    page.wait_for_selector(f"{STAGE}[data-steps='0'] svg")
    reset(page, domain="airline", seat="user", task_id="7")
    stage = page.inner_text("#oe-stage")
    assert "you: the customer" in stage and "Your scenario" in stage
    stage = click_quick(page, "Tell my request", 1)
    for step in (2, 3, 4):
        assert "Shall I proceed?" in stage
        stage = click_quick(page, "Yes, go ahead", step)
    assert "1628" in stage
    stage = click_quick(page, "That's all", 5)
    assert "Reward 1" in stage and "communicated 1" in stage
    assert page.console_errors == []
