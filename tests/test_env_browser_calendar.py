"""The calendar playground in a real browser: a tool called from the Tools tab changes the week
view and shows in the step log with its reward."""

from __future__ import annotations

import json

import pytest

from tests.conftest import serve

pytestmark = pytest.mark.browser

STAGE = "#oe-stage .oe-stage"


@pytest.fixture(scope="module")
def calendar_url():
    with serve("calendar_env.server.app:app") as url:
        yield url


def test_creating_an_event_from_the_tools_tab_draws_it_in_the_week_view(page, calendar_url):
    page.set_default_timeout(60_000)  # a Gradio page on a busy 2-core machine
    page.goto(calendar_url + "/web/")
    page.wait_for_selector(f"{STAGE}[data-steps='0'] svg")
    assert "Team offsite" not in page.inner_html("#oe-stage svg")
    page.get_by_role("tab", name="Tools").click()
    page.click("#oe-tool-picker input")
    page.get_by_role("option", name="create_event", exact=True).click()
    page.wait_for_selector("#oe-tool-form-create_event", state="visible")
    fields = {
        "calendarId": "primary",
        "summary": "Team offsite",
        "start": json.dumps({"dateTime": "2026-10-09T14:00:00Z"}),
        "end": json.dumps({"dateTime": "2026-10-09T16:00:00Z"}),
    }
    for name, value in fields.items():
        page.fill(f"#oe-arg-create_event-{name} :is(input, textarea)", value)
    page.click("#oe-tool-call")
    page.wait_for_selector(f"{STAGE}[data-steps='1']")
    page.wait_for_selector("#oe-tool-result .oe-tool-out")
    assert "✓ create_event" in page.inner_text("#oe-tool-result")
    assert "Team offsite" in page.inner_html("#oe-stage svg")
    assert page.console_errors == []
