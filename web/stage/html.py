"""The stage: the environment's view, its action buttons, sliders or typed action, the message
line and the episode panel (return, reward chart, step log, downloads), as one HTML fragment
the page swaps in at once. ``data-version`` grows with every change, so the page never draws an
older stage over a newer one (``assets/stage.js``).
"""

from __future__ import annotations

import html
import json
import re
from collections.abc import Sequence
from typing import Any

from openenv.core.views import Frame
from openenv.datasets.demos import MAX_NOTE_CHARS
from openenv.web.episode.steps import action_text, step_error
from openenv.web.episode.video import video_available
from openenv.web.forms import FieldSpec
from openenv.web.rewards.sparkline import reward_chart_svg
from openenv.web.stage.tabs import WebTab

LOG_ROWS = 25
_KEY_NAMES = {
    "ArrowUp": "↑",
    "ArrowDown": "↓",
    "ArrowLeft": "←",
    "ArrowRight": "→",
    " ": "Space",
    "Enter": "⏎",
}


def stage_html(tab: WebTab, typed: Sequence[FieldSpec] = (), demos: bool = False) -> str:
    """The whole stage for a tab (the page's JS reads ``data-tab`` to call the server);
    ``typed``: the fields of an action typed on the stage (when there are no buttons);
    ``demos``: the server keeps finished episodes as demonstrations (the visitor is told, and
    may leave this one out or mark it)."""
    shows = tab.shows
    return (
        f'<div class="oe-stage" data-tab="{html.escape(tab.key)}" data-version="{tab.version}" '
        f'data-done="{int(tab.done)}" data-steps="{len(tab.episode.steps)}" '
        f'data-autoplay="{int(bool(shows.legal or shows.sliders or tab.done))}" '
        f'data-fps="{shows.fps:g}">'
        f'<section class="oe-main">{_view(tab)}{_realtime(tab)}{_buttons(tab)}{_sliders(tab)}'
        f"{_typed(tab, typed)}{_message(tab)}</section>"
        f'<aside class="oe-side">{episode_panel(tab)}{_demo(tab) if demos else ""}</aside></div>'
    )


def quick_update(tab: WebTab) -> dict[str, Any]:
    """What autoplay needs per frame: the view and the counters, without the episode panel."""
    return {
        "version": tab.version,
        "view": tab.shows.html or _placeholder(tab),
        "steps": len(tab.episode.steps),
        "total": _num(tab.episode.total),
        "message": tab.notice.text,
    }


def _view(tab: WebTab) -> str:
    body = tab.shows.html or _placeholder(tab)
    return f'<div class="oe-view" aria-live="polite">{body}</div>'


def _placeholder(tab: WebTab) -> str:
    if tab.notice.kind == FULL:
        text = "⏳ This server is full right now."
    elif not tab.authorized:
        text = "🔒 Locked"
    else:
        text = "Press Reset to start an episode."
    return f'<div class="oe-empty">{html.escape(text)}</div>'


def _buttons(tab: WebTab) -> str:
    if not tab.shows.legal:
        return ""
    disabled = " disabled" if tab.done or tab.session is None else ""
    buttons = "".join(
        f'<button type="button" class="oe-act" data-i="{i}"'
        + (f' data-key="{html.escape(choice.key)}"' if choice.key else "")
        + (f' title="{html.escape(choice.description)}"' if choice.description else "")
        + (" data-idle" if choice.idle else "")
        + (f' data-path="{html.escape(" ".join(choice.path))}"' if choice.path else "")
        + f"{disabled}>{html.escape(choice.label)}"
        + (
            f"<kbd>{html.escape(_KEY_NAMES.get(choice.key, choice.key))}</kbd>"
            if choice.key
            else ""
        )
        + "</button>"
        for i, choice in enumerate(tab.shows.legal)
    )
    return f'<div class="oe-actions" role="toolbar" aria-label="legal actions">{buttons}</div>'


def realtime_capable(tab: WebTab) -> bool:
    """Whether the stage offers real-time play: a frame (or a board whose env marks an idle
    action) driven by keys."""
    shows = tab.shows
    keyed = any(choice.key for choice in shows.legal)
    return keyed and (isinstance(shows.view, Frame) or any(c.idle for c in shows.legal))


def _realtime(tab: WebTab) -> str:
    """The real-time toggle: while on, the stage steps at the env's frame rate, the held key's
    action (or the idle one) each tick; a held key alone plays too."""
    if not realtime_capable(tab):
        return ""
    disabled = " disabled" if tab.done or tab.session is None else ""
    return (
        '<div class="oe-rt-bar"><button type="button" class="oe-rt" aria-pressed="false"'
        f'{disabled}>▶ Real time</button><span class="oe-rt-note">'
        f"{tab.shows.fps:g} steps/s · hold the keys below · <kbd>P</kbd> pauses</span></div>"
    )


def _sliders(tab: WebTab) -> str:
    """One slider per number of a continuous action, where the visitor left them, and Step.

    With "hold" ticked, autoplay sends the sliders' values (moved while it plays) instead of
    random ones. Arrow keys move a focused slider, Enter steps.
    """
    sliders = tab.shows.sliders
    if sliders is None:
        return ""
    disabled = " disabled" if tab.done or tab.session is None else ""
    held = tab.shows.slider_values
    values = held if len(held) == len(sliders.sliders) else sliders.start
    names = [html.escape(s.label) for s in sliders.sliders]
    rows = "".join(
        f'<label class="oe-slider"><span title="{name}">{name}</span>'
        f'<input type="range" min="{s.low:g}" max="{s.high:g}" step="{s.step:g}" '
        f'value="{value:g}" data-start="{s.value:g}"{disabled}>'
        f"<output>{_num(value)}</output></label>"
        for s, value, name in zip(sliders.sliders, values, names, strict=True)
    )
    return (
        f'<div class="oe-sliders" role="group" aria-label="continuous action">{rows}'
        '<div class="oe-slider-bar">'
        f'<button type="button" class="oe-slide"{disabled}>Step ▶</button>'
        '<button type="button" class="oe-slide-start">Reset sliders</button>'
        '<label class="oe-hold" title="autoplay sends these values instead of random ones">'
        '<input type="checkbox" class="oe-hold-box"> hold during autoplay</label>'
        "</div></div>"
    )


def _typed(tab: WebTab, typed: Sequence[FieldSpec]) -> str:
    """The action typed on the stage (a word, a number): one box per field and Send, when the
    environment offers no buttons and no sliders now. Enter sends (Ctrl+Enter in a text area)."""
    shows = tab.shows
    if not typed or shows.legal or shows.sliders is not None:
        return ""
    disabled = " disabled" if tab.done or tab.session is None else ""
    boxes = "".join(
        _typed_box(spec, disabled, first=i == 0, text=shows.draft.get(spec.name, ""))
        for i, spec in enumerate(typed)
    )
    send = "Send (Ctrl+⏎)" if any(spec.multiline for spec in typed) else "Send ⏎"
    return (
        f'<form class="oe-typed" autocomplete="off" aria-label="type an action">{boxes}'
        f'<button type="submit" class="oe-typed-send"{disabled}>{send}</button></form>'
    )


def _typed_box(spec: FieldSpec, disabled: str, first: bool, text: str = "") -> str:
    """One typed field; ``text``: what it starts with (the env's draft, escaped)."""
    name = html.escape(spec.name)
    hint = html.escape(spec.description or spec.name)
    focus = " autofocus" if first else ""
    common = f'data-field="{name}" placeholder="{hint}" title="{hint}"{disabled}{focus}'
    if spec.multiline:
        rows = min(12, max(5, text.count("\n") + 1))  # longer text scrolls in the box
        # a newline right after the tag is dropped by the parser: one more keeps the text's own
        box = (
            f'<textarea rows="{rows}" spellcheck="false" {common}>\n{html.escape(text)}</textarea>'
        )
    else:
        kind = "number" if spec.kind in ("int", "number") else "text"
        step = ' step="1"' if spec.kind == "int" else (' step="any"' if kind == "number" else "")
        value = f' value="{html.escape(text)}"' if text else ""
        box = f'<input type="{kind}"{step} {common}{value}>'
    return f'<label class="oe-typed-field"><span>{name}</span>{box}</label>'


def _message(tab: WebTab) -> str:
    shows, notice = tab.shows, tab.notice
    if not notice.text and (shows.sliders is not None or any(c.key for c in shows.legal)):
        return f'<div class="oe-msg oe-hint">{_key_hint(tab)}</div>'
    role = ' role="alert"' if notice.kind in ("error", FULL) else ""
    text = html.escape(notice.text)
    if notice.kind == FULL:  # the server's own words: its Space's duplicate link made a link
        text = _DUPLICATE_LINK.sub(
            r'<a href="\g<0>" target="_blank" rel="noopener noreferrer">\g<0></a>', text
        )
        return f'<div class="oe-msg oe-msg-error oe-msg-full"{role}>{text}</div>'
    return f'<div class="oe-msg oe-msg-{notice.kind}"{role}>{text}</div>'


# A full server's notice (openenv.web.page.budget.full_notice): said as an error, its link to
# duplicate the Space clickable.
FULL = "full"
_DUPLICATE_LINK = re.compile(r"https://huggingface\.co/spaces/[\w.-]+/[\w.-]+\?duplicate=true")


def _demo(tab: WebTab) -> str:
    """The notice that demonstrations are kept, this episode's opt-out and its mark."""
    episode = tab.episode
    if not episode.keep_demo:
        state = "left out: this episode will not be kept"
    elif tab.done or (episode.marked and episode.steps):
        state = "kept"
    else:
        state = "kept when it ends"
    if episode.marked:
        state += f" · 🚩 marked: {episode.note or '(no note)'}"
    keep = episode.keep_demo
    toggle = "🚫 Don't keep this episode" if keep else "✅ Keep this episode after all"
    return (
        f'<div class="oe-demo" data-keep="{int(episode.keep_demo)}" '
        f'data-marked="{int(episode.marked)}">'
        "<p>🎥 <b>Demo collection is on</b>: episodes finished here are kept as a dataset "
        "(actions, observations, rewards).</p>"
        f'<button type="button" class="oe-demo-skip" data-keep="{int(not keep)}" '
        f'aria-pressed="{str(not keep).lower()}">{toggle}</button> '
        f'<input type="text" class="oe-demo-note" maxlength="{MAX_NOTE_CHARS}" '
        f'placeholder="a note (a reward that looks wrong…)" aria-label="note" '
        f'value="{html.escape(episode.note)}"> '
        '<button type="button" class="oe-demo-mark">🚩 Mark this episode</button> '
        f'<span class="oe-demo-state">{html.escape(state)}</span></div>'
    )


def _key_hint(tab: WebTab) -> str:
    keys = [choice.key for choice in tab.shows.legal if choice.key]
    shown = " ".join(f"<kbd>{html.escape(_KEY_NAMES.get(k, k))}</kbd>" for k in keys)
    arrows = {"ArrowUp", "ArrowDown", "ArrowLeft", "ArrowRight"} & set(keys)
    hints = []
    if keys:
        wasd = " or <kbd>W</kbd><kbd>A</kbd><kbd>S</kbd><kbd>D</kbd>" if arrows else ""
        hints.append(f"Keyboard: {shown}{wasd}")
    if tab.shows.sliders is not None:
        hints.append("on a slider, <kbd>←</kbd><kbd>→</kbd> move it and <kbd>⏎</kbd> steps")
    text = " · ".join(hints)
    return text[:1].upper() + text[1:]


def episode_panel(tab: WebTab) -> str:
    """Return, status, reward chart, the last steps and the download links."""
    steps = tab.episode.steps
    last = steps[-1]["reward"] if steps else None
    status = "done" if tab.done else ("running" if tab.session is not None else "no session")
    stats = (
        f'<div class="oe-stats"><div><span>Step</span><b class="oe-step">{len(steps)}</b></div>'
        f'<div><span>Return</span><b class="oe-return">{_num(tab.episode.total)}</b></div>'
        f"<div><span>Last reward</span><b>{_num(last)}</b></div>"
        f'<div><span>Status</span><b class="oe-status oe-status-{status.replace(" ", "-")}">'
        f"{status}</b></div></div>"
    )
    key = (
        '<div class="oe-chart-key"><span><i class="oe-key-reward"></i>reward</span>'
        '<span><i class="oe-key-return"></i>return</span></div>'
    )
    chart = reward_chart_svg(tab.episode.rewards)
    return stats + chart + key + _log(tab) + _downloads(tab)


def _log(tab: WebTab) -> str:
    steps = tab.episode.steps
    first = max(0, len(steps) - LOG_ROWS)
    rows = "".join(
        f'<tr class="oe-logrow" data-step="{i}" title="show step {i + 1} in Rewards">'
        f"<td>{i + 1}</td><td>{html.escape(action_text(s))}{_failed(s)}</td>"
        f"<td>{_num(s['reward'])}</td><td>{'✔' if s['done'] else ''}</td></tr>"
        for i, s in reversed(list(enumerate(steps))[first:])
    )
    more = f'<tr><td colspan="4" class="oe-more">… {first} earlier steps</td></tr>' if first else ""
    empty = '<tr><td colspan="4" class="oe-more">no steps yet</td></tr>' if not steps else ""
    return (
        '<div class="oe-log"><table><thead><tr><th>#</th><th>action</th><th>reward</th>'
        f"<th>done</th></tr></thead><tbody>{rows}{more}{empty}</tbody></table></div>"
    )


def _failed(step: dict[str, Any]) -> str:
    """A mark after a step whose observation reports an error (a tool call that failed)."""
    error = step_error(step)
    if error is None:
        return ""
    return (
        f' <span class="oe-failed" title="{html.escape(error)}">✗ {html.escape(error[:40])}</span>'
    )


def _downloads(tab: WebTab) -> str:
    if not tab.authorized or not tab.episode.steps:
        return ""
    key = html.escape(tab.export_key)  # read-only: the link cannot act on the tab
    links = [f'<a class="oe-dl" href="export/{key}/episode.jsonl" download>⬇ JSONL</a>']
    shown = tab.episode.frames[-1] if tab.episode.frames else None
    if shown is not None and shown.animates:  # videos: the stage script shows their progress
        kinds = ["gif", "mp4"] if video_available() else ["gif"]
        links += [
            f'<a class="oe-dl" data-video href="export/{key}/episode.{kind}" download>'
            f"⬇ {kind.upper()}</a>"
            for kind in kinds
        ]
    if tab.episode.replayable_reset is not None:  # the stage script copies the link
        links.append(
            f'<button type="button" class="oe-dl oe-share" data-share="export/{key}/share" '
            'title="A link that replays this episode in anyone\'s playground">🔗 Copy link</button>'
        )
    return f'<div class="oe-downloads">{"".join(links)}</div>'


def _num(value: Any) -> str:
    if value is None:
        return "–"
    if isinstance(value, bool):
        return str(value).lower()
    return f"{value:.4g}" if isinstance(value, float) else str(value)


def json_block(data: Any, empty: str) -> str:
    """A JSON document as a copyable block (state, last response)."""
    if data is None:
        return f'<div class="oe-empty">{html.escape(empty)}</div>'
    text = json.dumps(data, indent=2, ensure_ascii=False, default=str)
    return code_block(text, "json")


def code_block(text: str, language: str) -> str:
    return (
        f'<div class="oe-code"><button type="button" class="oe-copy">Copy</button>'
        f'<pre><code class="language-{language}">{html.escape(text)}</code></pre></div>'
    )
