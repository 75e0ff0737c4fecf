"""The playground's "Rewards" panel: the reward debugger of :mod:`openenv.web.rewards.review` as a
Gradio component, with its own fast path (pick a step, load a file, pin a run) and a refresh
after every change of the stage.

``build(controller, stage)`` creates the component inside the current Blocks context and wires
it; it keeps each tab's :class:`~openenv.web.rewards.review.Review` next to the tab (freed with it).
"""

from __future__ import annotations

import weakref
from typing import Any

import gradio as gr

from openenv.web.episode.files import EpisodeFileError, parse_episodes_jsonl
from openenv.web.rewards.review import Pinned, Review, review_html, rewards_of
from openenv.web.stage.controller import Controller
from openenv.web.stage.tabs import WebTab
from openenv.web.static import asset

GONE = "This page's session is gone: reload the page to start again."
NO_SEED_IN_FILE = (
    "This file's episode has no seed (its first line's reset options name none): it cannot be "
    "replayed exactly. Record with env.reset(seed=...) to make it replayable."
)


class RewardPanel:
    """Per-tab review state and the handlers behind the panel's buttons."""

    def __init__(self, controller: Controller) -> None:
        self.controller = controller
        self._reviews: weakref.WeakKeyDictionary[WebTab, Review] = weakref.WeakKeyDictionary()
        self._episodes: weakref.WeakKeyDictionary[WebTab, Any] = weakref.WeakKeyDictionary()
        self._version = 0  # one counter for all tabs: only its order matters

    def review(self, tab: WebTab) -> Review:
        return self._reviews.setdefault(tab, Review())

    def html(self, tab: WebTab) -> str:
        """The panel for ``tab`` as it stands."""
        review = self.review(tab)
        if self._episodes.get(tab) is not tab.episode:
            self._episodes[tab] = tab.episode  # a new episode started: follow it
            if review.loaded is None:
                review.selected = None
        seed = tab.episode.reset_kwargs.get("seed")
        self._version += 1
        return review_html(
            tab.key, review, tab.episode.steps, tab.episode.frames, seed, self._version
        )

    def pick(self, tab: WebTab, step: Any) -> None:
        steps = self.review(tab).shown(tab.episode.steps)
        if isinstance(step, int) and not isinstance(step, bool) and 0 <= step < len(steps):
            self.review(tab).selected = step

    def load(self, tab: WebTab, text: Any, name: Any) -> None:
        review = self.review(tab)
        if not isinstance(text, str):
            review.error = "No file content arrived: choose the .jsonl file again."
            return
        try:
            episodes = parse_episodes_jsonl(text)
        except EpisodeFileError as exc:
            review.error = f"Could not inspect {name or 'the file'}: {exc}"
            return
        review.episodes, review.loaded_name = episodes, str(name or "episode.jsonl")[:120]
        review.open_episode(0)
        review.error = ""

    def pin(self, tab: WebTab) -> None:
        review = self.review(tab)
        steps = review.shown(tab.episode.steps)
        if not steps:
            review.error = "Take at least one step before pinning the run."
            return
        if review.loaded is not None:
            label = f"pinned: {review.loaded_name}"
        else:
            seed = tab.episode.reset_kwargs.get("seed")
            label = "pinned run" + (f" (seed {seed})" if seed is not None else "")
        review.pinned, review.error = Pinned(label, rewards_of(steps)), ""

    async def play_from(self, tab: WebTab) -> None:
        """Reset with the shown episode's seed and options, replay its actions up to the
        selected step, and hand the episode to the visitor (the panel follows it live)."""
        review = self.review(tab)
        steps = list(review.shown(tab.episode.steps))
        index = review.index(steps)
        if index is None:
            review.error = "There is no step to play from yet."
            return
        if review.loaded is not None:
            reset = review.episodes[review.episode_at].reset if review.episodes else None
            if not isinstance(reset, dict) or not isinstance(reset.get("seed"), int):
                review.error = NO_SEED_IN_FILE
                return
        else:
            reset = tab.episode.replayable_reset
            if reset is None:
                review.error = "This episode's seed is unknown: it cannot be replayed exactly."
                return
        actions = [step.get("action") or {} for step in steps[: index + 1]]
        if await self.controller.replay(tab, reset, actions):
            review.loaded, review.selected, review.episodes = None, None, []
        else:
            review.error = tab.notice.text

    def command(self, tab: WebTab, name: str, data: dict[str, Any]) -> None:
        review = self.review(tab)
        review.error = ""
        if name == "pick":
            self.pick(tab, data.get("step"))
        elif name == "load":
            self.load(tab, data.get("text"), data.get("name"))
        elif name == "pin":
            self.pin(tab)
        elif name == "unpin":
            review.pinned = None
        elif name in ("episode-prev", "episode-next") and review.loaded is not None:
            review.open_episode(review.episode_at + (1 if name == "episode-next" else -1))
        elif name == "live":
            review.loaded, review.selected, review.episodes = None, None, []
        elif name == "latest":
            review.selected = None
        elif name in ("prev", "next"):
            steps = review.shown(tab.episode.steps)
            at = review.index(steps)
            if at is not None:
                self.pick(tab, max(0, min(len(steps) - 1, at + (1 if name == "next" else -1))))
        else:
            review.error = f"unknown reward-panel command {name!r}"


def build(controller: Controller) -> tuple[gr.HTML, RewardPanel]:
    """The panel's component, and the panel that draws it (the page refreshes it with the
    other panels when the stage changes: one event for all of them)."""
    panel = RewardPanel(controller)

    async def review(data: dict[str, Any], request: gr.Request) -> dict[str, Any]:
        key = data.get("tab") if isinstance(data, dict) else None
        tab = controller.tab(key, controller.owner_of(request))
        if tab is None:
            return {"error": GONE}
        command = str(data.get("do", ""))
        if command == "play-from":
            panel.review(tab).error = ""
            await panel.play_from(tab)
            return {"html": panel.html(tab), "stage": True}  # the page redraws the stage
        panel.command(tab, command, data)
        return {"html": panel.html(tab)}

    box = gr.HTML(
        '<div class="oe-review"><div class="oe-empty">No steps yet.</div></div>',
        js_on_load=asset("rewards.js"),
        css_template=asset("rewards.css"),
        server_functions=[review],
        elem_id="oe-rewards",
    )

    return box, panel
