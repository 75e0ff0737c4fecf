"""The Tools and Code tabs of the playground, in a real browser (plus their pure helpers)."""

from __future__ import annotations

import html
import json
from collections.abc import Iterator

import pytest
from conftest import ROOT, serve

from openenv.web.forms import example_value
from openenv.web.page.tools import result_html


@pytest.fixture(scope="module")
def tools_url() -> Iterator[str]:
    with serve("tool_apps:app", args=["--app-dir", str(ROOT / "tests")]) as url:
        yield url


@pytest.fixture(scope="module")
def coding_url() -> Iterator[str]:
    with serve("coding_env.server.app:app", env={"CODING_TIMEOUT_S": "20"}) as url:
        yield url


def open_tab(page, url: str, name: str) -> None:
    page.goto(url + "/web/")
    page.wait_for_selector("#oe-stage .oe-stage[data-tab]")
    page.get_by_role("tab", name=name).click()


def steps(page) -> int:
    return int(page.get_attribute("#oe-stage .oe-stage", "data-steps"))


def pick_tool(page, name: str) -> None:
    page.click("#oe-tool-picker input")
    page.get_by_role("option", name=name).click()
    page.wait_for_selector(f"#oe-tool-form-{name}", state="visible")


def clean(page) -> None:
    assert page.console_errors == []
    assert page.external_requests == []


@pytest.mark.browser
def test_a_tool_with_nested_arguments_is_called_from_its_form(page, tools_url: str) -> None:
    open_tab(page, tools_url, "Tools")
    pick_tool(page, "centroid")
    points = '[{"x": 0, "y": 0}, {"x": 4, "y": 2}]'
    page.fill("#oe-arg-centroid-points textarea", points)
    page.click("#oe-arg-centroid-unit label:has-text('in')")  # a few choices: radio buttons
    page.click("#oe-tool-call")
    page.wait_for_selector("#oe-tool-result .oe-tool-out")
    text = page.inner_text("#oe-tool-result")
    assert "✓ centroid" in text and "reward 0.0" in text
    assert json.loads(text[text.index("{") :]) == {"x": 2.0, "y": 1.0, "unit": "in"}
    page.wait_for_selector('#oe-stage .oe-stage[data-steps="1"]')  # logged as a step
    clean(page)


@pytest.mark.browser
def test_bad_json_is_not_sent_and_a_tool_failure_is_shown(page, tools_url: str) -> None:
    open_tab(page, tools_url, "Tools")
    pick_tool(page, "centroid")
    page.fill("#oe-arg-centroid-points textarea", "[{x: 1}")
    page.click("#oe-tool-call")
    page.wait_for_selector("#oe-tool-result .oe-tool-failed")
    assert "Not sent: points: not valid JSON" in page.inner_text("#oe-tool-result")
    assert steps(page) == 0
    page.fill("#oe-arg-centroid-points textarea", "[]")
    page.click("#oe-tool-call")
    page.wait_for_selector("#oe-tool-result :text('execution_error')")
    assert "give at least one point" in page.inner_text("#oe-tool-result")
    clean(page)


@pytest.mark.browser
def test_code_runs_from_the_editor_and_keeps_its_variables(page, coding_url: str) -> None:
    open_tab(page, coding_url, "Code")
    page.click("#oe-code .cm-content")
    page.keyboard.press("Control+A")
    page.keyboard.type("total = 6 * 7\nprint('total is', total)")
    page.click("#oe-code-run")
    page.wait_for_selector("#oe-code-status:has-text('exit code 0')")
    assert page.input_value("#oe-code-stdout textarea") == "total is 42\n"
    page.click("#oe-code .cm-content")
    page.keyboard.press("Control+A")
    page.keyboard.type("total / 0")
    page.click("#oe-code-run")
    page.wait_for_selector("#oe-code-status:has-text('exit code 1')")
    assert "ZeroDivisionError" in page.input_value("#oe-code-stderr textarea")
    assert steps(page) == 2
    clean(page)


def test_json_fields_start_from_a_skeleton_of_their_schema() -> None:
    schema = {
        "type": "array",
        "items": {
            "type": "object",
            "properties": {"x": {"type": "integer"}, "tag": {"enum": ["a", "b"]}},
            "required": ["x", "tag"],
        },
    }
    assert example_value(schema) == [{"x": 0, "tag": "a"}]


def test_results_are_drawn_as_text_or_indented_json_and_failures_say_why() -> None:
    ok = {"observation": {"tool_name": "t", "result": {"data": {"a": [1]}}}, "reward": 0.5}
    assert '"a": [\n    1\n  ]' in html.unescape(result_html(ok))
    failed = {
        "observation": {
            "tool_name": "t",
            "error": {"error_type": "invalid_args", "message": "x <missing>"},
        }
    }
    drawn = result_html(failed)
    assert "failed (invalid_args)" in drawn and "x &lt;missing&gt;" in drawn


@pytest.mark.browser
def test_a_tool_env_opens_on_its_tools_tab_without_any_wiring(page, tools_url: str) -> None:
    # tool_apps.py calls create_app(Geometry) with no gradio_builder: the tab comes by itself
    page.goto(tools_url + "/web/")
    page.wait_for_selector("#oe-tool-picker", state="visible")
    assert page.get_by_role("tab", name="Tools").get_attribute("aria-selected") == "true"
    assert page.get_by_role("tab", name="Tools").count() == 1
    clean(page)
