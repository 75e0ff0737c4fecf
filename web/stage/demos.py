"""The playground's side of human demonstrations (:mod:`openenv.datasets.demos`): each episode
a visitor finishes becomes a record in the server's one :class:`DemoStore`, unless the visitor
left that episode out; a visitor may mark an episode with a note. The
:class:`~openenv.web.stage.controller.Controller` calls it; nothing else writes the store.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from openenv.datasets.demos import DemoSettings, DemoStore, clean_note
from openenv.datasets.records import EpisodeRecord, record_from_steps
from openenv.server.context import ServerContext
from openenv.web.stage.tabs import Episode, WebTab

SETTINGS_KEY = "demo_settings"  # ctx.web[...]: the settings create_app was given, if any
STORE_KEY = "demos"  # ctx.web[...]: the store, for the download and push routes


class DemoKeeper:
    """Turns a tab's finished episodes into demonstrations in ``store``."""

    def __init__(self, ctx: ServerContext, store: DemoStore) -> None:
        self.ctx = ctx
        self.store = store
        self.schema = ctx.action_cls.model_json_schema()

    @classmethod
    def for_server(cls, ctx: ServerContext) -> DemoKeeper | None:
        """The keeper of this server's playground, or None when demos are off (the default)."""
        settings = ctx.web.get(SETTINGS_KEY)
        if not isinstance(settings, DemoSettings):  # None: the environment; a bool: on/off
            defaults = DemoSettings.from_env()
            on = defaults.enabled if settings is None else bool(settings)
            settings = replace(defaults, enabled=on)
        if not settings.enabled:
            return None
        store = ctx.web.setdefault(STORE_KEY, DemoStore(settings))
        return cls(ctx, store)

    def record(self, episode: Episode) -> EpisodeRecord:
        """The episode as a demonstration record (the schema of ``openenv collect``)."""
        extra: dict[str, Any] = {
            "env": self.ctx.manifest.name,
            "seed": episode.seed,
            "source": "demo",
            "policy": _policy(episode),
            "marked": episode.marked,
            "note": episode.note,
        }
        steps = [{**step, "action": _action(step.get("action") or {})} for step in episode.steps]
        return record_from_steps(
            episode.demo_id,
            self.ctx.manifest.name,
            episode.first_observation,
            steps,
            task=dict(episode.reset_kwargs) or None,
            extra=extra,
            action_schema=self.schema,
        )

    def finished(self, tab: WebTab) -> None:
        """The tab's episode ended, or a marked one is left (reset, tab closed; it was kept as
        it stood when marked): keep it as it is now, unless its visitor left it out."""
        episode = tab.episode
        if episode.keep_demo and (episode.done or episode.marked) and episode.steps:
            self.store.keep(self.record(episode))

    def set_keep(self, tab: WebTab, keep: bool) -> str:
        """Keep (or leave out) the tab's episode; one already kept is dropped at once."""
        tab.episode.keep_demo = keep
        if not keep:
            self.store.discard(tab.episode.demo_id)
            return "This episode will not be kept."
        self.finished(tab)
        return "This episode will be kept." if not tab.done else "This episode is kept."

    def mark(self, tab: WebTab, note: Any) -> str:
        """Mark the tab's episode with ``note`` (kept with it: a reward bug found by hand)."""
        episode = tab.episode
        episode.marked, episode.note = True, clean_note(note)
        if not episode.keep_demo:
            return "Marked, but this episode is left out: press Keep to keep it."
        if not episode.steps:
            return "Marked: the note is kept with this episode once it has a step."
        self.finished(tab)
        return "Marked: this episode is kept with the note, finished or not."


def _action(action: dict[str, Any]) -> dict[str, Any]:
    """The action as a policy sends it (an empty ``metadata`` left out, as in ``collect``)."""
    return {k: v for k, v in action.items() if not (k == "metadata" and not v)}


def _policy(episode: Episode) -> str:
    """``human``, or ``human+agent`` when the server's agent made some of the moves (🤖)."""
    agent = any(str(step.get("label") or "").startswith("🤖") for step in episode.steps)
    return "human+agent" if agent else "human"
