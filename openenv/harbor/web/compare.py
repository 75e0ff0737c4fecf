"""The Runs tab's comparison: two to four ticked runs side by side, a column each. Their task,
agent, sandbox, model, status, reward, model calls, trainable tokens, tool calls, times,
parameter fixes and trace checks, then their calls a row each (the first lines of what each
call said and ran), aligned by number so one sees where two agents diverged. A row whose values
differ is marked, the best reward starred and the first differing call flagged.

Pure functions from :class:`~openenv.harbor.RunRecord`\\ s (and their captures) to HTML, as
:mod:`.timeline`: everything a task, an agent or a model wrote is escaped with its ``esc`` and
bounded (``MAX_CALLS`` calls a column, ``STEP_LINES`` lines of ``LINE_CHARS`` characters a
call). :func:`tick` keeps the ticks: at most ``MAX_RUNS``; a fifth is refused with a note
rather than another unticked behind the visitor's back.
"""

from __future__ import annotations

from typing import Any

from openenv.core.harness.capture import CaptureResult
from openenv.harbor.service import RunRecord
from openenv.harbor.web.timeline import (
    MAX_CALLS,
    check_mark,
    checks,
    clip,
    esc,
    model_text,
    output_text,
    pretty_arguments,
    reward_text,
    status_badge,
    text_of,
    tool_outputs,
)

MIN_RUNS, MAX_RUNS = 2, 4
STEP_LINES = 3  # lines drawn of one call (what it said, each tool call, the output)
LINE_CHARS = 120
COMPARE_ID = "hb-rn-compare"  # the comparison's element, which the list's head scrolls to
TOO_MANY = f"At most {MAX_RUNS} runs compare at once: untick one before ticking another."
UNTIMED = ("wall time", "phases")  # always differ a little: not marked as a difference
Entry = tuple[RunRecord, CaptureResult | None]


def tick(ids: list[str], run_id: str, on: bool) -> tuple[list[str], str]:
    """The ticked run ids (in the order ticked) once ``run_id`` is ticked (``on``) or
    unticked, and a note when the tick is refused (a fifth run). Unticking ``""``: all."""
    if not on:
        return ([i for i in ids if i != run_id] if run_id else []), ""
    if run_id in ids:
        return list(ids), ""
    if len(ids) >= MAX_RUNS:
        return list(ids), TOO_MANY
    return [*ids, run_id], ""


def ticks_head(ticked: int, note: str = "") -> str:
    """The line above the runs list: how to compare, how many are ticked, a refused tick."""
    if ticked == 0:
        said = "☐ Tick two to four runs to compare them."
    else:  # with one, the comparison below says to tick more
        said = f"{ticked} of {MAX_RUNS} runs ticked"
    goto = (
        f' <button type="button" class="hb-linkbtn" data-goto="{COMPARE_ID}">'
        "see the comparison ↓</button>"
        if ticked >= MIN_RUNS
        else ""
    )
    warn = f' <span class="hb-cmp-note" role="alert">{esc(note)}</span>' if note else ""
    return f'<p class="hb-count hb-ticks" data-max-ticks="{MAX_RUNS}">{esc(said)}{goto}{warn}</p>'


def compare_html(entries: list[Entry], hidden: int = 0) -> str:
    """The comparison of ``entries`` (two to four; fewer or more are said, not drawn), with a
    note for the ``hidden`` ticked runs left out (dropped as old, or not this visitor's)."""
    left_out = (
        f'<p class="hb-cmp-note">{hidden} ticked run(s) left out: no longer kept (dropped as '
        "old) or not yours to see.</p>"
        if hidden
        else ""
    )
    if len(entries) > MAX_RUNS:
        return left_out + f'<p class="hb-cmp-note">{len(entries)} runs ticked. {TOO_MANY}</p>'
    if len(entries) < MIN_RUNS:
        if not entries and not hidden:
            return ""
        more = "one to three more runs" if entries else "two to four runs"
        return left_out + f'<p class="hb-empty">Tick {more} to compare them.</p>'
    rows = [_head_row(entries), *_fact_rows(entries), *_check_rows(entries)]
    rows += _step_rows([steps(capture) for _, capture in entries], [tail(r, c) for r, c in entries])
    return (
        f'<div class="hb-cmp-box">{left_out}<h4>Comparing {len(entries)} runs '
        '<span class="hb-muted">≠ marks a row that differs</span>'
        '<button type="button" class="hb-linkbtn" data-untick="">✕ untick all</button></h4>'
        '<p class="hb-cmp-hint">⟷ scroll sideways to see every run</p>'
        f'<div class="hb-cmp-scroll"><table class="hb-cmp" style="--hb-cmp-runs: {len(entries)}">'
        f"{''.join(rows)}</table></div></div>"
    )


def facts(record: RunRecord, capture: CaptureResult | None) -> dict[str, str]:
    """What is compared of one run, as plain text (escaped where drawn)."""
    result = record.result
    model = record.model or {}
    kept = [n for n in capture.nodes if n.status == "kept"] if capture else []
    n_tools = sum(len(_calls(n.reply)) for n in kept)
    timings = result.timings if result else {}
    phases = [("setup", "setup_s"), ("agent", "harness_s"), ("verifier", "verifier_s")]
    return {
        "task": f"{record.task} ({record.split} #{record.task_index})",
        "agent": record.harness,
        "sandbox": record.sandbox,
        "model": model_text(model, brief=True),
        "capture": f"{model.get('label') or ''} {model.get('capture_level') or ''}".strip() or "—",
        "status": record.status,
        "reward": reward_text(result.reward if result else None),
        "model calls": str(len(kept)) + (
            f" (+{capture.n_discarded} discarded)" if capture and capture.n_discarded else ""
        ),
        "trainable tokens": (
            f"{result.n_tokens:,}" if result and result.trace else
            "— (eval capture)" if capture and capture.rollout_type != "train" else "—"
        ),
        "tool calls": str(n_tools),
        "wall time": _wall(record),
        "phases": " · ".join(f"{name} {timings[key]:.1f} s" for name, key in phases
                             if key in timings) or "—",
        "parameter fixes": (", ".join(f.name for f in capture.fixes) or "none") if capture
        else "—",
    }  # fmt: skip


def steps(capture: CaptureResult | None) -> list[str]:
    """Each model call's first lines: what it said, each tool call and the start of its
    output (the first ``MAX_CALLS`` calls: :func:`tail` says what follows)."""
    if capture is None:
        return []
    nodes = sorted(capture.nodes, key=lambda n: n.seq)
    outputs = tool_outputs(nodes)
    return [_step(node.reply, node.status, outputs) for node in nodes[:MAX_CALLS]]


def tail(record: RunRecord, capture: CaptureResult | None) -> str:
    """What follows a run's drawn calls: the ones left out, that it still runs, or none."""
    n_calls = len(capture.nodes) if capture else 0
    if n_calls > MAX_CALLS:
        return f"… {n_calls - MAX_CALLS} more call(s): open the run to see them"
    if not record.finished:
        return "⚙️ running: new calls appear as they are made"
    return "" if n_calls else "(no model call captured)"


def _step(reply: dict[str, Any], status: str, outputs: dict[str, str]) -> str:
    lines = []
    said = _first_line(text_of(reply.get("content")))
    if said:
        lines.append(said)
    for call in _calls(reply):
        function = call.get("function") or {}
        name = str(function.get("name") or call.get("name") or "tool")[:60]
        command = pretty_arguments(function.get("arguments", call.get("arguments", "")))
        lines.append(f"▸ {name}: {_first_line(command)}")
        output = outputs.get(str(call.get("id", "")))
        if output is not None:
            lines.append("→ " + " ⏎ ".join(output_text(output).strip().splitlines()[:2]))
    if not lines:
        thinking = _first_line(text_of(reply.get("reasoning_content") or reply.get("reasoning")))
        lines.append(f"(thinks) {thinking}" if thinking else "(empty reply)")
    if status == "discarded":
        lines.append("(discarded branch)")
    shown = [_cut(line.splitlines()[0] if line else "") for line in lines[:STEP_LINES]]
    if len(lines) > STEP_LINES:
        shown.append(f"… {len(lines) - STEP_LINES} more line(s)")
    return "\n".join(shown)


def _calls(reply: dict[str, Any]) -> list[dict[str, Any]]:
    return [c for c in reply.get("tool_calls") or [] if isinstance(c, dict)]


def _cut(line: str) -> str:
    return line if len(line) <= LINE_CHARS else line[: LINE_CHARS - 1] + "…"


def _first_line(text: str) -> str:
    for line in str(text).splitlines():
        if line.strip():
            return line.strip()
    return ""


def _wall(record: RunRecord) -> str:
    if record.started_at is None:
        return "waiting for a free worker"
    if record.ended_at is None:  # no clock: a live column changes with its calls only
        return "running"
    return f"{record.ended_at - record.started_at:.1f} s"


def _row(label: str, cells: list[str], differs: bool, cls: str = "") -> str:
    mark = ' <span class="hb-cmp-mark" title="differs">≠</span>' if differs else ""
    classes = " ".join(c for c in (cls, "hb-cmp-diff" if differs else "") if c)
    opened = f'<tr class="{classes}">' if classes else "<tr>"
    return (
        f'{opened}<th scope="row">{esc(label)}{mark}</th>'
        f"{''.join(f'<td>{cell}</td>' for cell in cells)}</tr>"
    )


def _head_row(entries: list[Entry]) -> str:
    cells = []
    for record, _ in entries:
        cells.append(
            f'<th scope="col"><div class="hb-cmp-top">{status_badge(record.status)}'
            f'<code class="hb-id">{esc(record.id)}</code></div><div class="hb-cmp-acts">'
            f'<button type="button" class="hb-linkbtn" data-pick="{esc(record.id)}">open ▸'
            f'</button><button type="button" class="hb-linkbtn" data-untick="{esc(record.id)}">'
            "✕ untick</button></div></th>"
        )
    return f'<tr class="hb-cmp-head"><th scope="row">run</th>{"".join(cells)}</tr>'


def _fact_rows(entries: list[Entry]) -> list[str]:
    found = [facts(record, capture) for record, capture in entries]
    rewards = [record.result.reward if record.result else None for record, _ in entries]
    known = [r for r in rewards if r is not None]
    best = max(known) if known and len(set(rewards)) > 1 else None
    rows = []
    for key in found[0]:
        values = [f[key] for f in found]
        cells = [esc(v) for v in values]
        if key == "status":
            cells = [_status_cell(record) for record, _ in entries]
            values = [f"{r.status}\0{r.reason}" for r, _ in entries]
        elif key == "reward" and best is not None:
            cells = [
                f'<span class="hb-cmp-best">★ {esc(v)} best</span>' if r == best else esc(v)
                for v, r in zip(values, rewards, strict=True)
            ]
        differs = key not in UNTIMED and len(set(values)) > 1
        rows.append(_row(key, cells, differs))
    return rows


def _status_cell(record: RunRecord) -> str:
    reason = clip(record.reason, 300) if record.reason else ""
    said = f'<div class="hb-cmp-reason">{esc(reason)}</div>' if reason else ""
    return status_badge(record.status) + said


def _check_rows(entries: list[Entry]) -> list[str]:
    cells, values = [], []
    for record, capture in entries:
        if capture is None or not record.finished:
            found: list[tuple[str, bool | None, str]] = []
            note = "after the run ends" if not record.finished else "no capture"
            cells.append(f'<span class="hb-muted">{esc(note)}</span>')
        else:
            found = checks(record, capture)
            cells.append("".join(_check(name, ok, detail) for name, ok, detail in found))
        values.append(tuple((name, ok) for name, ok, _ in found))
    return [_row("trace checks", cells, len(set(values)) > 1)]


def _check(name: str, passed: bool | None, detail: str) -> str:
    mark, cls = check_mark(passed)
    return (
        f'<div class="{cls}"><b>{mark} {esc(name)}</b> '
        f'<span class="hb-cmp-detail">{esc(detail)}</span></div>'
    )


def _step_rows(columns: list[list[str]], tails: list[str]) -> list[str]:
    rows = [
        f'<tr class="hb-cmp-part"><th scope="row">calls</th>'
        f'<td colspan="{len(columns)}">the first lines of each model call, side by side</td></tr>'
    ]
    forked = False
    for index in range(max(len(c) for c in columns)):  # aligned by number
        values = [c[index] if index < len(c) else "" for c in columns]
        differs = len(set(values)) > 1
        label, cls = f"call {index + 1}", "hb-cmp-step"
        if differs and not forked:  # where the runs part ways
            forked, label, cls = True, f"{label} · first difference", f"{cls} hb-cmp-fork"
        cells = [f'<pre class="hb-cmp-pre">{esc(v)}</pre>' if v else "" for v in values]
        rows.append(_row(label, cells, differs, cls))
    if any(tails):
        cells = [f'<span class="hb-muted">{esc(t)}</span>' for t in tails]
        rows.append(_row("then", cells, False, "hb-cmp-step"))
    return rows
