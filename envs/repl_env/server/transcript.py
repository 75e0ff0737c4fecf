"""The playground's view of a session: its cells as a REPL transcript (a Text view)."""

from __future__ import annotations

from repl_env.models import REPLState
from repl_env.server.repl import Cell

MAX_CELLS = 30  # the most recent cells shown
MAX_OUTPUT_CHARS = 2_000  # per cell and stream
MAX_CHARS = 30_000


def transcript(state: REPLState, cells: list[tuple[str, Cell]], ending: str) -> str:
    """``>>>`` / ``...`` prompts, each cell's output under it, the task and the ending."""
    head = [f"# Task ({state.task}): {state.task_prompt}"] if state.task_prompt else []
    if state.context is not None:
        head.append(f"# context: {len(state.context)} characters")
    head.append(f"# step {state.iteration}/{state.max_iterations}")
    parts = ["\n".join(head)]
    if len(cells) > MAX_CELLS:
        parts.append(f"[... {len(cells) - MAX_CELLS} earlier cells not shown]")
    parts += [_cell(code, cell) for code, cell in cells[-MAX_CELLS:]]
    if not cells:
        parts.append(">>> ")
    if ending:
        parts.append(f"# {ending}")
    text = "\n".join(parts)
    return text if len(text) <= MAX_CHARS else "[...]\n" + text[-MAX_CHARS:]


def _cell(code: str, cell: Cell) -> str:
    lines = code.rstrip("\n").splitlines() or [""]
    shown = [">>> " + lines[0], *("... " + line for line in lines[1:])]
    for stream in (cell.stdout, cell.stderr):
        if stream:
            cut = stream if len(stream) <= MAX_OUTPUT_CHARS else stream[:MAX_OUTPUT_CHARS] + "[...]"
            shown.append(cut.rstrip("\n"))
    return "\n".join(shown)
