"""The web search playground in a real browser: the question and the search box are on the
first screen; a query typed there draws a results page (address, title, snippet), and the
answer typed after it scores 1.0, shown on the stage."""

from __future__ import annotations

import re

import pytest
from websearch_env.server.environment import normalize, questions

from tests.conftest import serve
from tests.servers import artifacts

pytestmark = pytest.mark.browser

STAGE = "#oe-stage .oe-stage"
FORM = "#oe-stage form.oe-typed"


@pytest.fixture(scope="module")
def websearch_url():
    with serve("websearch_env.server.app:app") as url:
        yield url


def send(page, field: str, text: str, steps: int) -> None:
    page.fill(f"{FORM} input[data-field='{field}']", text)
    page.click(f"{FORM} button.oe-typed-send")
    page.wait_for_selector(f"{STAGE}[data-steps='{steps}']")


def test_searching_and_answering_on_the_page_scores_one(page, websearch_url):
    page.set_default_timeout(60_000)  # a Gradio page on a busy 2-core machine
    page.set_viewport_size({"width": 1280, "height": 800})
    page.goto(websearch_url + "/web/")
    page.wait_for_selector(f"{STAGE}[data-steps='0'] svg")
    page.wait_for_selector(f"{FORM} input[data-field='query']")
    svg_text = " ".join(page.inner_text("#oe-stage .oe-view").split())
    question = next(q for q in questions() if q["question"] in svg_text)
    assert "type a query" in svg_text and "query" in page.inner_text(".oe-howto")

    send(page, "query", question["question"], 1)
    view = " ".join(page.inner_text("#oe-stage .oe-view").split())
    assert re.search(r"\d results? · offline corpus · BM25", view)
    assert "https://offline.corpus/wiki/" in view
    answer = next(a for a in question["answers"] if normalize(a) in normalize(view))
    page.evaluate("window.scrollTo(0, 0)")
    page.screenshot(path=str(artifacts() / "websearch_1280x800.png"))

    send(page, "answer", answer, 2)
    view = " ".join(page.inner_text("#oe-stage .oe-view").split())
    assert f"✓ Answer: {answer} — correct" in view
    assert "RETURN 1" in " ".join(page.inner_text("#oe-stage").split()).upper()
    assert page.console_errors == []
    assert page.external_requests == []
