"""KernRL in a real browser: the task is on the stage and its starter kernel in the code box,
a wrong kernel comes back wrong with its error and interpreter timings, and the reference
kernel wins full reward."""

from __future__ import annotations

import re

import pytest
from kernrl_env.server.tasks import TASKS

from tests.sandboxpy import sandbox_python_has
from tests.servers import artifacts, catalog_serving

pytestmark = pytest.mark.browser
# Kernels run on the sandbox's Python (Debian's python3 when the server is root, as here):
# that one needs torch and triton (tests/run.sh installs them), not this process, where
# libtriton loaded beside torch._dynamo and the other tests' native libraries crashed pytest.
if not sandbox_python_has("torch", "triton"):
    pytest.skip("the sandbox's Python lacks torch or triton", allow_module_level=True)

STAGE = "#oe-stage .oe-stage"
BOX = "#oe-stage form.oe-typed textarea[data-field='source']"


@pytest.fixture(scope="module")
def catalog(tmp_path_factory):
    """The catalog app serving only this env: one server process for the module."""
    with catalog_serving(tmp_path_factory.mktemp("kernrl"), ["kernrl_env"]) as url:
        yield url


def send(page, source: str | None, steps: int) -> str:
    if source is not None:
        page.fill(BOX, source)
    page.click("#oe-stage form.oe-typed button.oe-typed-send")
    page.wait_for_selector(f'{STAGE}[data-steps="{steps}"]', timeout=300_000)
    return page.inner_text("#oe-stage .oe-text")


def test_a_visitor_sends_a_wrong_kernel_then_a_correct_one(page, catalog):
    page.set_viewport_size({"width": 1280, "height": 800})
    page.set_default_timeout(60_000)  # a Gradio page on a busy 2-core runner
    page.goto(catalog + "/envs/kernrl/web/")
    page.wait_for_selector(f'{STAGE}[data-steps="0"]')
    first = page.inner_text("#oe-stage .oe-text")
    assert first.startswith("TASK (") and "The code box holds the task's template" in first
    task = next(t for t in TASKS if first.startswith(f"TASK ({t.task_id})"))
    assert page.input_value(BOX) == task.starter  # the code box opens with the template
    text = send(page, None, 1)  # sent as it is
    # a starter's TODO leaves the output unwritten (NaN, every run) or, as matmul's does,
    # stores its zero accumulator (an error as large as the product)
    assert re.search(r"Attempt 1: reward 0\.00  WRONG: (the output has NaN|max abs error \d)", text)
    assert page.input_value(BOX) == task.starter  # the last attempt, to correct
    assert "interpreter timings (CPU)" in text
    text = send(page, task.solution, 2)
    assert "Attempt 2: reward 1.00  CORRECT" in text and "speed-up" in text
    assert page.inner_text("#oe-stage .oe-return") == "1"
    shot = artifacts() / "kernrl_1280x800.png"
    page.screenshot(path=str(shot))
    assert page.console_errors == []
    assert page.external_requests == []
