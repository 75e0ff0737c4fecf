"""A run as the Runs tab shows it: its status and reward, what the agent did as a timeline
(the prompt, thinking, each tool call with its input and output, the final answer), the trace
checks, the verifier's output and the harness's log.

Pure functions from a :class:`~openenv.harbor.RunRecord` (and its live capture) to HTML: every
text a task, an agent or a model wrote is escaped here, and each is bounded (at most
``MAX_CALLS`` model calls, ``MAX_TEXT`` characters a block; what is left out is said).
"""

from __future__ import annotations

import html
import json
import time
from typing import Any

from openenv.core.harness.capture import CaptureResult
from openenv.harbor.service import RunRecord

MAX_CALLS = 40  # model calls drawn in a timeline; the others are counted
MAX_TEXT = 4000  # characters of one block (a prompt, a reply, a tool's output)
STATUS_ICONS = {"queued": "⏳", "running": "⚙️", "ok": "✅", "failed": "❌", "cancelled": "⏹"}


def esc(value: Any) -> str:
    return html.escape(str(value), quote=True)


def clip(text: str, limit: int = MAX_TEXT) -> str:
    """``text`` bounded to ``limit`` characters, saying how many more there were."""
    if len(text) <= limit:
        return text
    return text[:limit] + f"\n… ({len(text) - limit:,} more characters not shown)"


def pre(text: str, cls: str = "") -> str:
    return f'<pre class="hb-pre {cls}">{esc(clip(text))}</pre>'


def text_of(content: Any) -> str:
    """A message's content as text: a string, or the text parts of a list of parts."""
    if content is None:
        return ""
    if isinstance(content, list):
        parts = [p.get("text") or p.get("content") or "" for p in content if isinstance(p, dict)]
        return "\n".join(str(p) for p in parts if p).strip()
    return str(content).strip()


def status_badge(status: str) -> str:
    icon = STATUS_ICONS.get(status, "")
    return f'<span class="hb-status hb-{esc(status)}">{icon} {esc(status)}</span>'


def reward_text(reward: float | None) -> str:
    return "—" if reward is None else f"{reward:g}"


def run_html(record: RunRecord, capture: CaptureResult | None) -> str:
    """The whole run view: head, timeline, trace checks, verifier output and log."""
    parts = [_head(record), timeline_html(capture, live=not record.finished)]
    result = record.result
    if capture is not None and record.finished:
        parts.append(checks_html(record, capture))
    if result is not None and result.verifier_output:
        parts.append(f"<h4>Verifier output</h4>{pre(result.verifier_output)}")
    if result is not None and result.log_tail:
        parts.append(
            f"<details><summary>Harness log (last lines)</summary>{pre(result.log_tail)}</details>"
        )
    return f'<div class="hb-run" data-status="{esc(record.status)}">{"".join(parts)}</div>'


def model_text(model: dict[str, Any], brief: bool = False) -> str:
    """Which model played a run, by its kind (``record.model``; never a key): the TEST engine,
    a model on Hugging Face and its provider, this server's endpoint or a visitor's URL
    (``brief``: the TEST engine in three words, for a table's cell)."""
    kind, name = str(model.get("kind") or ""), str(model.get("model") or "")
    if kind == "test":
        if brief:
            return "TEST engine (scripted replay)"
        return "shipped TEST engine: a scripted replay of the task's solution, not a model"
    if kind == "hf":
        provider = model.get("provider") or "auto"
        return clip(f"Hugging Face Inference Providers · {name} · provider {provider}", 400)
    where = {"server": "this server's endpoint"}.get(kind, "")
    parts = [where, str(model.get("url") or ("" if where else kind)), name]
    return clip(" · ".join(p for p in parts if p), 400) or "—"


def _head(record: RunRecord) -> str:
    model = record.model or {}
    label = model.get("label") or ""
    facts = [
        ("task", f"{record.task} ({record.split} #{record.task_index})"),
        ("agent", record.harness),
        ("sandbox", record.sandbox),
        ("model", model_text(model)),
        ("capture", f"{label} {model.get('capture_level') or ''}".strip()),
        ("time", _times(record)),
    ]
    rows = "".join(f"<dt>{esc(k)}</dt><dd>{esc(v)}</dd>" for k, v in facts if v)
    reward = record.result.reward if record.result else None
    reason = f'<p class="hb-reason">{esc(clip(record.reason, 1000))}</p>' if record.reason else ""
    return (
        f'<div class="hb-run-head">{status_badge(record.status)}'
        f'<span class="hb-reward">reward <b>{esc(reward_text(reward))}</b></span>'
        f'<code class="hb-id">{esc(record.id)}</code></div>{reason}<dl class="hb-facts">{rows}</dl>'
    )


def _times(record: RunRecord) -> str:
    start = record.started_at
    if start is None:
        return "waiting for a free worker"
    if record.ended_at is None:  # no clock here: a live run's view changes with its calls only
        return f"running since {time.strftime('%H:%M:%S', time.localtime(start))}"
    return f"{record.ended_at - start:.1f} s"


def timeline_html(capture: CaptureResult | None, live: bool = False) -> str:
    """The model calls as steps: the prompt once, then each call's thinking, words and tool
    calls (each with its output, from the next call's messages), the last reply as the answer."""
    if capture is None or not capture.nodes:
        note = "No model call yet: the agent is starting." if live else "No model call captured."
        return f'<div class="hb-timeline"><p class="hb-empty">{esc(note)}</p></div>'
    nodes = sorted(capture.nodes, key=lambda n: n.seq)
    outputs = tool_outputs(nodes)
    items = [_prompt_item(nodes[0].messages)]
    shown = nodes[:MAX_CALLS]
    for number, node in enumerate(shown, start=1):
        last = number == len(nodes) and not live
        items.append(_call_item(number, node.reply, node.status, outputs, last))
    if len(nodes) > len(shown):
        items.append(
            f'<div class="hb-more">… {len(nodes) - len(shown)} more model call(s) not shown '
            f"(the timeline shows the first {MAX_CALLS}; the result JSON has them all)</div>"
        )
    if live:
        items.append('<div class="hb-live">⚙️ running: new calls appear as they are made</div>')
    return f'<div class="hb-timeline">{"".join(items)}</div>'


def tool_outputs(nodes: list[Any]) -> dict[str, str]:
    """Each tool call's output (by its call id), from the tool messages the next calls sent."""
    outputs: dict[str, str] = {}
    for node in nodes:
        for message in node.messages:
            if message.get("role") == "tool" and message.get("tool_call_id"):
                outputs[str(message["tool_call_id"])] = text_of(message.get("content"))
    return outputs


def _prompt_item(messages: list[dict[str, Any]]) -> str:
    blocks = []
    for message in messages:
        role = str(message.get("role", ""))
        if role in ("system", "user", "developer"):
            blocks.append(
                f'<div class="hb-role">{esc(role)}</div>{pre(text_of(message.get("content")))}'
            )
    if not blocks:
        return ""
    return (
        '<div class="hb-step hb-prompt"><details><summary><b>Prompt</b> '
        "(what the agent sent the model first)</summary>"
        f"{''.join(blocks)}</details></div>"
    )


def _call_item(
    number: int, reply: dict[str, Any], status: str, outputs: dict[str, str], last: bool
) -> str:
    parts = []
    thinking = text_of(reply.get("reasoning_content") or reply.get("reasoning"))
    if thinking:
        parts.append(f'<div class="hb-role">thinking</div>{pre(thinking, "hb-thinking")}')
    said = text_of(reply.get("content"))
    calls = [c for c in reply.get("tool_calls") or [] if isinstance(c, dict)]
    if said:
        role = "final answer" if last and not calls else "says"
        parts.append(f'<div class="hb-role">{role}</div>{pre(said)}')
    for call in calls:
        parts.append(_tool_call(call, outputs, last))
    discarded = ' <span class="hb-muted">(discarded branch)</span>' if status == "discarded" else ""
    return (
        f'<div class="hb-step hb-call"><div class="hb-step-title">Call {number}{discarded}</div>'
        f"{''.join(parts) or '<p class=hb-empty>(empty reply)</p>'}</div>"
    )


def _tool_call(call: dict[str, Any], outputs: dict[str, str], last: bool) -> str:
    function = call.get("function") or {}
    name = str(function.get("name") or call.get("name") or "tool")
    raw = function.get("arguments", call.get("arguments", ""))
    arguments = pretty_arguments(raw)
    output = outputs.get(str(call.get("id", "")))
    if output is not None:
        shown = pre(output_text(output), "hb-output")
    else:
        missing = "the run ended here" if last else "waiting for it"
        shown = f'<p class="hb-muted">(no output: {missing})</p>'

    return (
        f'<div class="hb-tool"><div class="hb-role">tool call · <code>{esc(name[:100])}</code>'
        "</div>"
        f'{pre(arguments, "hb-input")}<div class="hb-role">output</div>{shown}</div>'
    )


def output_text(text: str) -> str:
    """A tool's output: a shell result (``{"returncode", "output"}``) as its exit code and
    output, anything else as it came."""
    try:
        value = json.loads(text)
    except ValueError:
        return text
    if isinstance(value, dict) and "output" in value:
        code = value.get("returncode", value.get("exit_code"))
        head = f"exit {code}\n" if code is not None else ""
        return head + str(value["output"])
    return text


def pretty_arguments(raw: Any) -> str:
    """Tool arguments: a shell command as itself, other JSON indented."""
    value = raw
    if isinstance(raw, str):
        try:
            value = json.loads(raw)
        except ValueError:
            return raw
    if isinstance(value, dict) and set(value) == {"command"}:
        return str(value["command"])
    return json.dumps(value, indent=2, ensure_ascii=False)


def checks(record: RunRecord, capture: CaptureResult) -> list[tuple[str, bool | None, str]]:
    """The trace checks: (name, passed — None when it only informs —, what was found)."""
    kept = [n for n in capture.nodes if n.status == "kept"]
    train = capture.rollout_type == "train"
    label = "[TRAIN]" if train else "[EVAL ONLY]"
    found: list[tuple[str, bool | None, str]] = [
        ("capture level", train, f"{label}: {capture.capture_level} captured"),
        ("calls kept", bool(kept), f"{len(kept)} kept, {capture.n_discarded} discarded"),
    ]
    if train:
        no_ids = sum(1 for n in kept if not n.has_tokens)
        found.append(("engine token ids", no_ids == 0, f"{len(kept) - no_ids}/{len(kept)} calls"))
        bad = sum(1 for n in kept if len(n.per_token_logps or []) != len(n.completion_token_ids))
        found.append(("one logprob a token", bad == 0, f"{len(kept) - bad}/{len(kept)} calls"))
        children = [n for n in kept if n.parent_id is not None]
        by_tokens = sum(1 for n in children if n.linked_by == "tokens")
        found.append(
            ("prompts extend the previous call's tokens", by_tokens == len(children),
             f"{by_tokens}/{len(children)} follow-up calls")
        )  # fmt: skip
    trace = record.result.trace if record.result else None
    if trace is not None:
        found.append(("training trace", True, f"validated: {len(trace.turns)} turn(s)"))
    else:
        why = "eval capture: no training trace" if not train else "not built"
        found.append(("training trace", False if train else None, why))
    for fix in capture.fixes:
        found.append((f"fix applied: {fix.name}", None, fix.effect))
    return found


def check_mark(passed: bool | None) -> tuple[str, str]:
    """A trace check's mark and class: passed, failed, or only informs (None)."""
    if passed is None:
        return "ℹ", "hb-info"
    return ("✓", "hb-pass") if passed else ("✗", "hb-fail")


def checks_html(record: RunRecord, capture: CaptureResult) -> str:
    rows = []
    for name, passed, detail in checks(record, capture):
        mark, cls = check_mark(passed)
        rows.append(
            f'<div class="{cls}"><b>{mark} {esc(name)}</b> <span>{esc(detail)}</span></div>'
        )
    return f'<h4>Trace checks</h4><div class="hb-checks">{"".join(rows)}</div>'
