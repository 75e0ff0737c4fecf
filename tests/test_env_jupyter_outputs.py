"""jupyter_env keeps display outputs bounded: in count and size per cell (the oldest dropped,
the agent and the visitor told) and in the notebook as a whole."""

from __future__ import annotations

import re

import pytest

pytest.importorskip("jupyter_client")

from jupyter_env import CallToolAction
from jupyter_env.models import CellOutput
from jupyter_env.server import notebook as notebook_module
from jupyter_env.server.environment import JupyterEnvironment
from jupyter_env.server.kernel import Execution, OutputBounds, _Collector

from openenv.sandbox import SandboxLimits


def displays(collector: _Collector, count: int, text: str = "") -> None:
    for i in range(count):
        collector.add("display_data", {"data": {"text/plain": text or f"shown {i}"}})


def test_a_cell_keeps_its_last_displays_and_says_how_many_were_dropped() -> None:
    collector = _Collector(OutputBounds(displays=64))
    collector.add("stream", {"name": "stdout", "text": "first line\n"})
    displays(collector, 60_000)
    result = collector.result()
    shown = [o.text for o in result.outputs if o.output_type == "display_data"]
    assert len(shown) == 64 and shown[-1] == "shown 59999" and shown[0] == "shown 59936"
    assert result.outputs[0].text == "first line\n"  # streams are not displays: kept
    assert any("59936 older display output(s) of this cell dropped" in n for n in result.notes)


def test_a_cell_keeps_its_displays_within_their_size() -> None:
    collector = _Collector(OutputBounds(display_chars=10_000, display_text_chars=4_000))
    displays(collector, 20, text="y" * 5_000)  # each clipped to 4,000 characters
    result = collector.result()
    kept = [o for o in result.outputs if o.output_type == "display_data"]
    assert len(kept) == 2 and sum(len(o.text) for o in kept) <= 10_000
    assert any("18 older display output(s)" in n for n in result.notes)


def test_the_notebook_drops_its_oldest_cells_past_its_size(monkeypatch) -> None:
    monkeypatch.setattr(notebook_module, "MAX_CHARS", 100_000)  # a cell: 40,000 (its text twice)
    book = notebook_module.Notebook()
    big = Execution(outputs=[CellOutput(output_type="display_data", text="z" * 20_000)])
    for _ in range(5):
        book.add("code", "display('z' * 20_000)", big)
    assert len(book.cells) == 2 and book.dropped == 3
    assert "3 older cell(s) dropped" in book.summary()


def test_a_kernel_printing_thousands_of_displays_keeps_few_and_says_so() -> None:
    env = JupyterEnvironment(SandboxLimits(memory_mb=512), timeout_s=60)
    try:
        env.reset()
        code = "from IPython.display import display\nfor i in range(5000):\n    display(i)"
        obs = env.step(
            CallToolAction(tool_name="add_and_execute_code_cell", arguments={"code": code})
        )
        assert obs.error is None, obs.error
        cell = env.state.cells[-1]
        # The kernel publishes outputs on a ZMQ PUB socket, which discards messages past its
        # high-water mark when the reader falls behind (a loaded machine): what is kept is the
        # last 64 displays this side received, and the count is of those it dropped, at most
        # the 4,936 the cell made beyond 64.
        kept = [int(out.text) for out in cell.outputs]
        assert len(kept) == 64 and kept == sorted(set(kept)) and kept[-1] > 4900, kept
        dropped = re.search(r"(\d+) older display output\(s\) of this cell dropped", cell.output)
        assert dropped is not None, cell.output[-300:]
        assert 4000 < int(dropped.group(1)) <= 4936
    finally:
        env.close()
