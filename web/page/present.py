"""Presentation mode (``?present=1``, ``agent`` or ``random``, ``&speed=`` steps a second, or the
🎬 Present button): its bar over the stage (:func:`present_html`) and who plays in it
(:func:`present_player`). The page's own autoplay (``assets/page.js``) plays episode after
episode; ``assets/playground.css`` lays it out under ``html.oe-present``."""

from __future__ import annotations

import html

from openenv.server.context import ServerContext
from openenv.web.agents import RandomAgent
from openenv.web.stage.controller import Controller

MAX_CAPTION_CHARS = 200


def present_player(controller: Controller) -> tuple[str, str]:
    """Who plays in presentation mode, and the name the bar shows: ``"agent"``, the
    operator's agent (``OPENENV_AGENT``) when one is set up; else ``"solver"``, the env's
    own solver (the oracle its validation plays) when it ships one that runs here; else
    ``"random"``, autoplay's random actions."""
    try:
        agent = controller.agent
    except Exception as exc:  # the operator's settings are wrong: said, the env plays
        agent, why = None, f" (OPENENV_AGENT is not set up: {exc})"
    else:
        why = ""
    if agent is not None and not isinstance(agent, RandomAgent):
        return "agent", f"agent: {agent.name}"
    if controller.solver is not None:
        return "solver", f"the env's solver{why}"
    return "random", f"random moves{why or ' (autoplay)'}"


def present_html(ctx: ServerContext, player: str, name: str) -> str:
    """Presentation mode's bar: the env's name, a one-line caption of what it is about (its
    description, else its how-to-play; the view draws its own legend), who plays (``player``:
    ``agent``, ``solver`` or ``random``, shown as ``name``: :func:`present_player`), the speed
    and the episode (filled in by ``assets/page.js``), and Pause, Full screen and Exit."""
    m = ctx.manifest
    how = str(getattr(ctx.env_cls, "how_to_play", "") or "")
    caption = _one_line(m.description or how or m.display_title)
    icon = {"agent": "🤖", "solver": "🧭"}.get(player, "🎲")
    return (
        f'<div class="oe-present-bar" data-player="{html.escape(player)}" data-episodes="0" '
        'role="region" aria-label="presentation">'
        f'<span class="oe-present-emoji" aria-hidden="true">{html.escape(m.emoji)}</span>'
        f'<div class="oe-present-text"><h2>{html.escape(m.display_title)}</h2>'
        f'<p class="oe-present-caption" title="{html.escape(how)}">{html.escape(caption)}</p>'
        '<div class="oe-present-meta">'
        f'<span class="oe-present-player" title="who plays">{icon} {html.escape(name)}</span>'
        '<span class="oe-present-speed" title="steps a second (&amp;speed= in the address)">'
        "</span>"
        '<span class="oe-present-ep">Episode <b class="oe-present-episode">1</b></span>'
        '<span class="oe-present-note" role="status"></span></div></div>'
        '<div class="oe-present-buttons">'
        '<button type="button" class="oe-present-pause" aria-pressed="false">❚❚ Pause</button>'
        '<button type="button" class="oe-present-full">Full screen</button>'
        '<button type="button" class="oe-present-exit" title="back to the playground (Esc)">'
        "✕ Exit</button></div></div>"
    )


def _one_line(text: str) -> str:
    line = " ".join(str(text).split())
    return line if len(line) <= MAX_CAPTION_CHARS else line[: MAX_CAPTION_CHARS - 1] + "…"
