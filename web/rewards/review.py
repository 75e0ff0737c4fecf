"""The reward debugger's HTML: one recorded episode (live or loaded from a file) as a stacked
component chart, the components of the selected step, that step's action and observation
(time travel through the record, nothing re-run), a clickable step list, and the comparison with
a pinned run. Pure functions of the record: no Gradio, no session.
"""

from __future__ import annotations

import html
import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from openenv.web.drawing import Picture, picture
from openenv.web.drawing.html import observation_html
from openenv.web.episode.files import RecordedEpisode
from openenv.web.episode.steps import action_text, set_fields
from openenv.web.remote.rules import Rules
from openenv.web.rewards.charts import (
    compare_chart_svg,
    contributions,
    first_divergence,
    stacked_chart_svg,
)
from openenv.web.rewards.components import colours, components_table_html

LIST_ROWS = 60
_FILE_RULES = Rules({})  # reads the pictures of a loaded file's observations


@dataclass
class Pinned:
    """A run kept for comparison: its label and its reward per step."""

    label: str
    rewards: list[float]


@dataclass
class Review:
    """What one tab's reward debugger shows: which step, which record, which pinned run."""

    selected: int | None = None  # None: follow the latest step
    loaded: list[dict[str, Any]] | None = None
    loaded_name: str = ""
    pinned: Pinned | None = None
    error: str = ""
    episodes: list[RecordedEpisode] = field(default_factory=list)  # of the file loaded
    episode_at: int = 0

    def open_episode(self, index: int) -> None:
        """Show the file's episode ``index`` (kept within the file), from its last step."""
        if not self.episodes:
            return
        self.episode_at = max(0, min(index, len(self.episodes) - 1))
        self.loaded, self.selected = self.episodes[self.episode_at].steps, None

    def shown(self, live: list[dict[str, Any]]) -> list[dict[str, Any]]:
        return self.loaded if self.loaded is not None else live

    def index(self, steps: Sequence[dict[str, Any]]) -> int | None:
        if not steps:
            return None
        if self.selected is None or self.selected >= len(steps):
            return len(steps) - 1
        return max(0, self.selected)


def rewards_of(steps: Sequence[dict[str, Any]]) -> list[float]:
    """Reward per step (a missing reward counts as 0)."""
    return [float(s.get("reward") or 0.0) for s in steps]


def review_html(
    key: str,
    review: Review,
    live: list[dict[str, Any]],
    frames: Sequence[Picture] = (),
    seed: Any = None,
    version: int = 0,
) -> str:
    """The whole debugger for one tab (``key`` lets the page's script call the server;
    ``version`` grows with every render so the page can drop an answer that arrives late)."""
    steps = review.shown(live)
    index = review.index(steps)
    source = (
        f"file {review.loaded_name or 'episode.jsonl'}{_which(review)}"
        if review.loaded is not None
        else "live"
    )
    body = (
        _toolbar(review, source)
        + _error(review.error)
        + ("" if index is None else _scrubber(index, len(steps)))
        + f'<div class="oe-rv-grid"><div class="oe-rv-chart">{stacked_chart_svg(steps, index)}'
        f"{_compare(review, steps, source, seed)}</div>"
        f'<div class="oe-rv-step">{_detail(steps, index, frames, review.loaded is None)}</div>'
        f"</div>{_step_list(steps, index)}"
    )
    selected = "" if index is None else str(index)
    return (
        f'<div class="oe-review" data-tab="{html.escape(key)}" data-source="{html.escape(source)}"'
        f' data-steps="{len(steps)}" data-selected="{selected}" data-version="{version}">'
        f"{body}</div>"
    )


def _which(review: Review) -> str:
    """Which episode of a file of several is shown, and its seed."""
    if len(review.episodes) < 2:
        return ""
    episode = review.episodes[review.episode_at]
    seed = (episode.reset or {}).get("seed")
    where = f", episode {review.episode_at + 1} of {len(review.episodes)}"
    return where + (f" (seed {seed})" if seed is not None else "")


def _episode_buttons(review: Review) -> str:
    if review.loaded is None or len(review.episodes) < 2:
        return ""
    last = len(review.episodes) - 1
    prev = " disabled" if review.episode_at == 0 else ""
    after = " disabled" if review.episode_at == last else ""
    return (
        f'<button type="button" data-do="episode-prev"{prev}>◀ Episode</button>'
        f'<button type="button" data-do="episode-next"{after}>Episode ▶</button>'
    )


def _toolbar(review: Review, source: str) -> str:
    live = review.loaded is None
    back = (
        "" if live else '<button type="button" data-do="live">↩ Back to the live episode</button>'
    )
    pin = (
        '<button type="button" data-do="unpin">Unpin</button>'
        if review.pinned
        else '<button type="button" data-do="pin" class="oe-pin">📌 Pin this run</button>'
    )
    follow = (
        '<button type="button" data-do="latest">⏭ Latest step</button>'
        if review.selected is not None
        else ""
    )
    return (
        '<div class="oe-rv-bar"><span class="oe-rv-source">Showing: '
        f"<b>{html.escape(source)}</b></span>{_episode_buttons(review)}{follow}{pin}{back}"
        '<label class="oe-rv-file">📂 Inspect episode (.jsonl) '
        '<input type="file" accept=".jsonl,.json,.ndjson,application/x-ndjson,text/plain" '
        'class="oe-inspect-file"></label></div>'
    )


def _error(text: str) -> str:
    return f'<div class="oe-rv-error" role="alert">{html.escape(text)}</div>' if text else ""


def _compare(review: Review, steps: list[dict[str, Any]], source: str, seed: Any) -> str:
    if review.pinned is None:
        return (
            '<p class="oe-rv-hint">Pin this run, reset with the same seed, act differently: '
            "both reward curves are drawn here.</p>"
        )
    current = rewards_of(steps)
    label = "this run" + (f" (seed {seed})" if seed is not None and source == "live" else "")
    svg = compare_chart_svg([(review.pinned.label, review.pinned.rewards), (label, current)])
    split = first_divergence(review.pinned.rewards, current)
    where = "identical rewards so far" if split is None else f"rewards differ from step {split + 1}"
    totals = (
        f"{html.escape(review.pinned.label)}: return {sum(review.pinned.rewards):+.4g} · "
        f"{html.escape(label)}: return {sum(current):+.4g} · {where}"
    )
    return f'<div class="oe-rv-compare">{svg}<p class="oe-rv-totals">{totals}</p></div>'


def _detail(
    steps: list[dict[str, Any]], index: int | None, frames: Sequence[Picture], live: bool
) -> str:
    if index is None:
        return '<div class="oe-empty">No steps yet: act, or inspect an exported episode.</div>'
    step = steps[index]
    names, _ = contributions(steps)
    table = components_table_html(step, index, colours(names))
    action = json.dumps(set_fields(step.get("action") or {}), ensure_ascii=False, indent=1)
    button = f": {html.escape(step['label'])}" if isinstance(step.get("label"), str) else ""
    observation = step.get("observation") or {}
    frame = _frame(frames, index, len(steps)) if live else _file_frame(observation, index)
    return (
        f'{table}<h4>Action{button}</h4><pre class="oe-rv-action">{html.escape(action)}</pre>'
        f"<h4>Observation after step {index + 1}"
        f"{' (done)' if step.get('done') else ''}</h4>{frame}"
        f'<div class="oe-rv-obs">{observation_html(_without_components(observation))}</div>'
    )


def _frame(frames: Sequence[Picture], index: int, count: int) -> str:
    """The picture after step ``index`` when one was recorded for every step (reset first)."""
    if len(frames) != count + 1:
        return ""
    shown = frames[index + 1].html()
    return f'<div class="oe-rv-view" title="after step {index + 1}">{shown}</div>'


def _file_frame(observation: dict[str, Any], index: int) -> str:
    """The picture a file's step carries in its observation (a frame in any of the wire's
    encodings, a board...), read by the remote drawing rules when this step is shown."""
    view = _FILE_RULES.read(observation).view
    if view is None:
        return ""
    shown = picture(view).html()
    return f'<div class="oe-rv-view" title="after step {index + 1}">{shown}</div>'


def _scrubber(index: int, count: int) -> str:
    """The timeline: a slider over every step, step buttons, and ▶ Play from here."""
    last = count - 1
    prev = " disabled" if index == 0 else ""
    after = " disabled" if index == last else ""
    return (
        '<div class="oe-rv-scrubber">'
        f'<button type="button" data-do="prev" aria-label="previous step"{prev}>◀</button>'
        f'<input type="range" class="oe-rv-scrub" min="0" max="{last}" value="{index}" '
        f'step="1" aria-label="step of the episode">'
        f'<button type="button" data-do="next" aria-label="next step"{after}>▶</button>'
        f'<span class="oe-rv-at">step {index + 1} of {count}</span>'
        '<button type="button" data-do="play-from" class="oe-rv-play" title="Reset with this '
        "episode's seed and options, replay its actions up to this step, then play on"
        '">▶ Play from here</button></div>'
    )


def _without_components(observation: dict[str, Any]) -> dict[str, Any]:
    metadata = observation.get("metadata")
    if not isinstance(metadata, dict):
        return observation
    rest = {k: v for k, v in metadata.items() if k not in ("reward_components", "reward_weights")}
    return {**observation, "metadata": rest}


def _step_list(steps: list[dict[str, Any]], index: int | None) -> str:
    if not steps:
        return ""
    centre = index if index is not None else len(steps) - 1
    first = max(0, min(centre - LIST_ROWS // 2, len(steps) - LIST_ROWS))
    shown = range(first, min(len(steps), first + LIST_ROWS))
    rows = "".join(_list_row(steps[i], i, i == index) for i in shown)
    note = (
        f'<p class="oe-rv-hint">steps {first + 1}–{shown[-1] + 1} of {len(steps)} '
        "(click a bar of the chart to jump)</p>"
        if len(steps) > LIST_ROWS
        else ""
    )
    return (
        '<div class="oe-rv-list"><table><thead><tr><th>#</th><th>action</th><th>reward</th>'
        f"<th>done</th></tr></thead><tbody>{rows}</tbody></table>{note}</div>"
    )


def _list_row(step: dict[str, Any], i: int, picked: bool) -> str:
    text = action_text(step, 48)
    reward = step.get("reward")
    return (
        f'<tr class="oe-steprow{" oe-picked" if picked else ""}" data-step="{i}" tabindex="0">'
        f"<td>{i + 1}</td><td>{html.escape(text)}</td>"
        f"<td>{'–' if reward is None else f'{float(reward):+.4g}'}</td>"
        f"<td>{'✔' if step.get('done') else ''}</td></tr>"
    )
