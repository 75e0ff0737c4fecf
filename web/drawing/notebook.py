"""Pictures in Jupyter: the IPython rich display of observations, step results, views and
episodes (``_repr_mimebundle_``), drawn as the playground draws them.

- A view (``Frame``, ``Board``, ``Text``, ``Svg``): its PNG (an SVG as SVG too).
- An observation or a step result: the picture the remote rules find in it
  (:mod:`openenv.web.remote.rules`: frames in any encoding, boards, grids, FEN), with its
  reward and done underneath in HTML; nothing when it holds no picture, only text (IPython
  then shows its usual text).
- An episode (a list of recorded steps, or ``(view, ...)`` pictures): an animated GIF.

Every bundle keeps ``text/plain`` (what a console shows). Nothing here raises: a picture that
cannot be made leaves the text.
"""

from __future__ import annotations

import base64
import html
from collections.abc import Sequence
from typing import Any

from openenv.core.views import Board, Frame, Svg, Text, View
from openenv.web.drawing.dispatch import to_png
from openenv.web.drawing.svg import sanitize_svg

Bundle = dict[str, Any]
MAX_EPISODE_PICTURES = 2000


def view_bundle(view: View, plain: str | None = None) -> Bundle:
    """A view's bundle: ``image/png``, and ``image/svg+xml`` for an SVG."""
    bundle: Bundle = {"text/plain": plain if plain is not None else _plain(view)}
    if isinstance(view, Svg):
        bundle["image/svg+xml"] = sanitize_svg(view.markup)
    png = to_png(view)
    if png is not None:
        bundle["image/png"] = png
    return bundle


def observation_bundle(
    observation: Any, reward: Any = None, done: Any = None, plain: str = ""
) -> Bundle | None:
    """The picture of an observation (a pydantic model or its fields), its reward and done in
    a caption; ``None`` when it holds no picture."""
    fields = _fields(observation)
    if fields is None:
        return None
    view = _rules().read(fields).view
    if view is None or isinstance(view, Text):  # words read better as the model's own text
        return None
    png = to_png(view)
    if png is None:
        return None
    if reward is None:
        reward = fields.get("reward")
    if done is None:
        done = fields.get("done")
    caption = f"reward {reward if reward is not None else '—'} · done {bool(done)}"
    picture = base64.b64encode(png).decode()
    return {
        "text/plain": plain or repr(observation),
        "text/html": (
            f'<figure style="margin:0"><img src="data:image/png;base64,{picture}" '
            f'alt="{html.escape(_plain(view))}"/><figcaption style="font:12px sans-serif;'
            f'color:#475569">{html.escape(caption)}</figcaption></figure>'
        ),
        "image/png": png,
    }


def result_bundle(result: Any) -> Bundle | None:
    """A step result's bundle: its observation's picture, captioned with its reward."""
    return observation_bundle(
        getattr(result, "observation", None),
        getattr(result, "reward", None),
        getattr(result, "done", None),
        plain=repr(result),
    )


def episode_bundle(steps: Sequence[Any], fps: float = 4.0) -> Bundle | None:
    """An animated GIF of an episode: recorded steps (``{"observation": ...}``, what the
    recorder and the page export write) or step results."""
    from openenv.web.episode.export import episode_gif

    pngs = []
    for step in list(steps)[:MAX_EPISODE_PICTURES]:
        observation = step.get("observation") if isinstance(step, dict) else step
        observation = getattr(observation, "observation", observation)
        fields = _fields(observation)
        view = _rules().read(fields).view if fields is not None else None
        png = to_png(view) if view is not None else None
        if png is not None:
            pngs.append(png)
    gif = episode_gif(pngs, fps)
    if gif is None:
        return None
    return {"text/plain": f"episode of {len(steps)} steps", "image/gif": gif}


def _fields(observation: Any) -> dict[str, Any] | None:
    if isinstance(observation, dict):
        return observation
    dump = getattr(observation, "model_dump", None)
    if dump is None:
        return None
    try:
        return dump(mode="json")
    except (TypeError, ValueError):
        return None


def _rules() -> Any:
    from openenv.web.remote.rules import Rules  # the rules import this package's views

    global _RULES
    if _RULES is None:
        _RULES = Rules({})
    return _RULES


_RULES: Any = None


def _plain(view: View) -> str:
    if isinstance(view, Frame):
        height, width = view.shape
        return f"Frame({width}×{height})"
    if isinstance(view, Board):
        return view.to_text()
    if isinstance(view, Text):
        return view.text
    return "Svg drawing"
