"""The episode's notebook: executed cells as :class:`NotebookCell`, and their text for agents.

A tool returns :func:`format_for_llm` of its cell (stdout, results, a note per image, the
traceback on error); ``get_notebook_state`` returns :meth:`Notebook.summary` of the last cells.
The notebook keeps at most ``MAX_CELLS`` cells and ``MAX_CHARS`` characters of outputs (text,
images, HTML) in all: past either, the oldest cells go first, and the summary says how many.
"""

from __future__ import annotations

from jupyter_env.models import NotebookCell
from jupyter_env.server.kernel import Execution

MAX_CELLS = 100
MAX_CHARS = 32_000_000
SUMMARY_CELLS = 10
SUMMARY_OUTPUT_CHARS = 500


def format_for_llm(execution: Execution) -> str:
    """The cell's output as one string: text first, then images noted, then the error."""
    parts = []
    for out in execution.outputs:
        if out.output_type == "stream":
            parts.append(out.text.rstrip("\n"))
        elif out.output_type in ("execute_result", "display_data") and out.png is None:
            parts.append(out.text)
    images = sum(1 for out in execution.outputs if out.png is not None)
    if images:
        parts.append(f"[Image output: {images} image(s) generated]")
    if execution.error:
        parts.append(f"ERROR:\n{execution.error}")
    parts.extend(f"[{note}]" for note in execution.notes)
    text = "\n".join(p for p in parts if p)
    return text or "(no output)"


class Notebook:
    """The executed cells of one episode, in order."""

    def __init__(self) -> None:
        self.cells: list[NotebookCell] = []
        self.dropped = 0  # the oldest cells let go (count and size bounds)
        self._counter = 0

    def add(self, cell_type: str, code: str, execution: Execution) -> NotebookCell:
        self._counter += 1
        cell = _cell(f"cell-{self._counter}", cell_type, code, execution)
        self.cells.append(cell)
        self._bound()
        return cell

    def _bound(self) -> None:
        sizes = [_chars(cell) for cell in self.cells]
        total = sum(sizes)
        keep_from = 0
        while keep_from < len(self.cells) - 1 and (
            len(self.cells) - keep_from > MAX_CELLS or total > MAX_CHARS
        ):
            total -= sizes[keep_from]
            keep_from += 1
        self.dropped += keep_from
        del self.cells[:keep_from]

    def replace_last_code_cell(self, code: str, execution: Execution) -> NotebookCell:
        """Replace the latest code cell (or add one if there is none)."""
        for index in range(len(self.cells) - 1, -1, -1):
            if self.cells[index].cell_type == "code":
                cell = _cell(self.cells[index].cell_id, "code", code, execution)
                self.cells[index] = cell
                return cell
        return self.add("code", code, execution)

    def summary(self, include_images: bool = False) -> str:
        """The last cells, their code and (truncated) output, for an agent's memory."""
        if not self.cells:
            return "The notebook is empty: no cell has been executed yet."
        shown = self.cells[-SUMMARY_CELLS:]
        lines = [f"Notebook: {len(self.cells)} cell(s), the last {len(shown)} shown."]
        if self.dropped:
            lines.append(
                f"({self.dropped} older cell(s) dropped: the notebook keeps its last "
                f"{MAX_CELLS} cells, {MAX_CHARS:,} characters of outputs at most)"
            )
        for cell in shown:
            status = "ok" if cell.success else "error"
            lines.append(f"--- [{cell.execution_count}] {cell.cell_type} ({status})")
            lines.append(cell.code)
            output = cell.output
            if len(output) > SUMMARY_OUTPUT_CHARS:
                output = output[:SUMMARY_OUTPUT_CHARS] + " [...]"
            lines.append(f">>> {output}")
            if include_images:
                lines.extend(f"data:image/png;base64,{png}" for png in cell.images)
        return "\n".join(lines)


def _chars(cell: NotebookCell) -> int:
    outputs = sum(len(o.text) + len(o.png or "") + len(o.html or "") for o in cell.outputs)
    return len(cell.code) + len(cell.output) + outputs


def _cell(cell_id: str, cell_type: str, code: str, execution: Execution) -> NotebookCell:
    images = [out.png for out in execution.outputs if out.png is not None]
    return NotebookCell(
        cell_id=cell_id,
        cell_type=cell_type,
        code=code,
        output=format_for_llm(execution),
        error=execution.error,
        execution_count=execution.execution_count,
        has_image=bool(images),
        images=images,
        success=execution.success,
        outputs=execution.outputs,
    )
