"""The FinQA playground in a real browser: the question and the company's tables are on the
stage at first sight; a query, a calculation and an answer made with the Tools tab's forms
draw the table, the rows and the result, and the right answer scores 1.0 on the stage."""

from __future__ import annotations

import re

import pytest
from finqa_env.server.calculator import calculate
from finqa_env.server.dataset import load_synthetic
from finqa_env.server.tables import CompanyTables

from tests.conftest import serve
from tests.servers import artifacts
from tests.test_env_finqa import SOLUTIONS

pytestmark = pytest.mark.browser

STAGE = "#oe-stage .oe-stage"


@pytest.fixture(scope="module")
def finqa_url():
    with serve("finqa_env.server.app:app") as url:
        yield url


def call_tool(page, name: str, fields: dict[str, str], steps: int) -> None:
    page.click("#oe-tool-picker input")
    page.get_by_role("option", name=name, exact=True).click()
    page.wait_for_selector(f"#oe-tool-form-{name}", state="visible")
    for field, value in fields.items():
        page.fill(f"#oe-arg-{name}-{field} :is(input, textarea)", value)
    page.click("#oe-tool-call")
    page.wait_for_selector(f"{STAGE}[data-steps='{steps}']")


def test_answering_with_sql_and_the_calculator_on_the_page_scores_one(page, finqa_url):
    page.set_default_timeout(60_000)  # a Gradio page on a busy 2-core machine
    page.set_viewport_size({"width": 1280, "height": 800})
    page.goto(finqa_url + "/web/")
    page.wait_for_selector(f"{STAGE}[data-steps='0'] svg")
    svg = page.inner_html("#oe-stage svg")
    question_id = re.search(r"question (syn-\d\d)", svg).group(1)
    data = load_synthetic()
    question = next(q for q in data.questions if q.id == question_id)
    assert "Tables (3)" in svg and "(fictional)" in svg
    assert "submit_answer" in page.inner_text(".oe-howto")
    table, query, expression = SOLUTIONS[question_id]

    page.get_by_role("tab", name="Tools").click()
    company = {"company_name": question.company, "table_name": table}
    call_tool(page, "sql_query", {**company, "query": query}, 1)
    assert "Last query: SELECT" in page.inner_html("#oe-stage svg")
    rows = CompanyTables(data.companies[question.company]).query(table, query)["rows"]
    formula = expression(rows)
    call_tool(page, "calculator", {"expression": formula}, 2)
    value = calculate(formula)
    page.evaluate("window.scrollTo(0, 0)")
    page.screenshot(path=str(artifacts() / "finqa_1280x800.png"))

    call_tool(page, "submit_answer", {"answer": f"{value:.4f}"}, 3)
    svg = page.inner_html("#oe-stage svg")
    assert f"Answer submitted: {value:.4f} — correct; reference {question.answer}" in svg
    assert "submit_answer · reward 1.0 · episode over" in page.inner_text("#oe-tool-result")
    assert page.console_errors == []
    assert page.external_requests == []
