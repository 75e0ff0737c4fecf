"""The stage's JSON routes, next to the playground page at ``{path}``: the one API of the stage
script (``assets/stage.js``), for the fast shell and the Gradio page alike.

- ``POST {path}/stage/open`` ``{}``: open a browser tab's session (counted against the server's
  capacity, like every playground tab) and reset it; answers ``{"tab": key, "html", ...}``.
  The fast shell calls it; the Gradio page opens its tab in its load event.
- ``POST {path}/stage/reset`` ``{"tab"}``: a new episode (a tab that is gone is opened afresh,
  with a new key).
- ``POST {path}/stage/act`` ``{"tab", "index"}``: press a legal-action button;
  ``{"tab", "values"}``: step with the sliders at those values; ``{"tab", "fields"}``: step with
  the action typed on the stage.
- ``POST {path}/stage/autoplay`` ``{"tab", "values"?}``: one random step (or the held sliders'
  values); answers only the view and the counters (``quick``) while the episode goes on.
  ``{"tab", "agent": true}``: one step chosen by the server's agent (:mod:`openenv.web.agents`);
  ``act`` with ``"reply": true`` lets the agent answer the visitor's move (two-player games),
  only on the other side's turn (``"side"``: the visitor's, as the observation names turns,
  or ``"first"`` / ``"second"``: the side that moved first in this episode, or the other one;
  :func:`agents_turn`, :func:`~openenv.web.agents.answer_wanted`).
  ``{"tab", "agent": true, "side"}``: the agent moves only if it is the other side's turn
  (the visitor chose to play second: the agent opens).
  ``{"tab", "solver": true}``: one step chosen by the env's own solver, the oracle its
  validation plays (presentation mode when no agent is set up; a random step when it has none).
  ``{"tab", "replay": token}``: the next step of a shared episode (presentation mode of a link:
  its reset first, then each action; over, it starts again).
  ``{"tab", "index"}``: press that button and answer like autoplay (real-time play: held keys
  step at the env's frame rate).
- ``POST {path}/stage/redraw`` ``{"tab"}``: the stage as it stands.
- ``POST {path}/stage/replay`` ``{"tab", "episode": token}``: reset and replay the episode of
  a shared link (:mod:`openenv.web.episode.share`); the visitor goes on from there.
- ``POST {path}/stage/demo`` ``{"tab", "keep": bool}`` or ``{"tab", "mark": note}``: leave the
  episode out of the server's demonstrations (or keep it again), or mark it with a note (when
  the operator keeps demonstrations: :mod:`openenv.web.stage.demos`).
- ``POST {path}/stage/panels`` ``{"tab", "panels": [...]}``: the Gradio page's side panels
  in view (``state``, ``raw``, ``code``, ``rewards``) as HTML, ``{"ok", "panels": {name:
  html}}``, a panel unchanged since this tab's last answer left out: the page refreshes them
  after a stage answer without a Gradio event (one plain call, no queue).
  A stage call (act, autoplay, redraw, demo, replay) may name the same panels (``"panels":
  [...]``): its answer then carries them (``"panels": {name: html}``) with the stage they
  follow, so a click is one round trip; quick autoplay answers carry none.
- ``POST {path}/stage/close`` ``{"tab"}``: the browser tab went away before Gradio adopted it
  (``navigator.sendBeacon``); frees the session.

Every answer is ``{"ok", "done", "html" | "quick", "error"?}`` with status 200, also for a
refusal the visitor should read (a full server, a locked server, a closed tab, an illegal move),
so the browser console stays clean; malformed requests get a 400 that says what to send.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from fastapi import FastAPI, HTTPException, Request
from fastapi.responses import Response

from openenv.core.serialization import load_untrusted
from openenv.web.agents import answer_wanted, side_of, turn_of
from openenv.web.stage import messages
from openenv.web.stage.controller import Controller
from openenv.web.stage.html import quick_update
from openenv.web.stage.tabs import WebTab

Answer = dict[str, Any]
MAX_BODY_BYTES = 256 * 1024  # a typed action, slider values: a stage call is small
MAX_PANELS = 8  # a panels call names a few panels


def add_stage_routes(app: FastAPI, controller: Controller, path: str) -> None:
    """The stage's routes of the playground at ``path`` (see the module docstring)."""

    async def open_tab(request: Request) -> Answer:
        await _body(request)
        return await _open(controller, request)

    async def reset(request: Request) -> Answer:
        key = (await _body(request)).get("tab")
        tab = controller.tab(key, controller.owner_of(request))
        if tab is None:
            if controller.tabs.by_key(key) is not None:
                return {"ok": False, "error": messages.NOT_YOURS}
            return await _open(controller, request)
        return answer(controller, tab, await controller.reset(tab, {}))

    async def act(tab: WebTab, data: dict[str, Any]) -> Answer:
        mover = turn_of(tab.episode.observation)  # the visitor's side, unless they chose one
        side = data.get("side")
        ok = await controller.press(tab, data)
        reply = ok and data.get("reply") is True and not tab.done  # the agent answers
        if side in SEATS:
            reply = reply and agents_turn(tab, side)
        else:
            reply = reply and answer_wanted(tab.episode.observation, mover, side)
        if reply:
            ok = await controller.agent_step(tab)
        return answer(controller, tab, ok)

    async def autoplay(tab: WebTab, data: dict[str, Any]) -> Answer:
        if data.get("agent") is True and "side" in data:  # the agent opens, on its turn only
            if not agents_turn(tab, data["side"]):
                return answer(controller, tab, True)
            return answer(controller, tab, await controller.agent_step(tab))
        if data.get("agent") is True:
            ok = await controller.agent_step(tab)
        elif data.get("solver") is True:  # presentation mode: the env's own solver plays
            ok = await controller.solver_step(tab)
        elif "replay" in data:  # presentation mode of a shared link: its next step
            ok = await controller.recording_step(tab, data["replay"])
        elif "index" in data:  # real-time play: the held key's button (or the idle one)
            ok = await controller.act(tab, data["index"])
        else:
            ok = await controller.random_step(tab, data.get("values"))
        if not ok or tab.done:
            return answer(controller, tab, ok)
        return {"ok": True, "done": False, "quick": quick_update(tab)}

    async def replay(tab: WebTab, data: dict[str, Any]) -> Answer:
        return answer(controller, tab, await controller.replay_link(tab, data.get("episode")))

    async def demo(tab: WebTab, data: dict[str, Any]) -> Answer:
        return answer(controller, tab, await controller.demo(tab, data))

    async def redraw(tab: WebTab, data: dict[str, Any]) -> Answer:
        await controller.redraw(tab)
        return answer(controller, tab, True)

    async def panels(request: Request) -> Answer:
        data = await _body(request)
        tab = controller.tab(data.get("tab"), controller.owner_of(request))
        if tab is None:
            known = controller.tabs.by_key(data.get("tab")) is not None
            return {"ok": False, "error": messages.NOT_YOURS if known else messages.GONE}
        names = data.get("panels")
        if controller.panels is None or not isinstance(names, list):
            raise HTTPException(400, 'send {"tab": "<key>", "panels": ["rewards", ...]}')
        names = [str(name) for name in names[:MAX_PANELS]]
        return {"ok": True, "panels": await controller.panels(tab, names, request)}

    async def close(request: Request) -> Response:
        tab = controller.tab((await _body(request)).get("tab"), controller.owner_of(request))
        if tab is not None:
            await controller.close(tab)
        return Response(status_code=204)

    routes: dict[str, Callable[[Request], Awaitable[Any]]] = {
        "open": open_tab,
        "reset": reset,
        "act": _on_tab(controller, act),
        "autoplay": _on_tab(controller, autoplay),
        "redraw": _on_tab(controller, redraw),
        "demo": _on_tab(controller, demo),
        "replay": _on_tab(controller, replay),
        "panels": panels,
        "close": close,
    }
    for name, endpoint in routes.items():
        app.add_api_route(
            f"{path}/stage/{name}", endpoint, methods=["POST"], include_in_schema=False
        )


SEATS = ("first", "second")  # "you play": the side that moves first in the episode, or not


def agents_turn(tab: WebTab, side: Any) -> bool:
    """Whether the agent is to move when the visitor plays ``side``: ``"first"`` or
    ``"second"`` (the side whose turn the episode began with, or the other one), or a turn
    value as the observation names it (:func:`~openenv.web.agents.side_of`). Never when the
    game is over or its observation names no turn."""
    turn = turn_of(tab.episode.observation)
    if tab.done or turn is None:
        return False
    if side in SEATS:
        first = turn_of(tab.episode.first_observation)
        return first is not None and (turn == first) == (side == "second")
    mine = side_of(side)
    return mine is not None and turn != mine


def answer(controller: Controller, tab: WebTab, ok: bool) -> Answer:
    """The stage call's answer: the whole stage, and the notice when the call was refused."""
    out: Answer = {"ok": ok, "done": tab.done, "html": controller.html(tab)}
    if not ok:
        out["error"] = tab.notice.text
    return out


def _on_tab(
    controller: Controller, handler: Callable[[WebTab, dict[str, Any]], Awaitable[Answer]]
) -> Callable[[Request], Awaitable[Answer]]:
    """A route that acts on the tab its body names (the page's session is gone otherwise)."""

    async def endpoint(request: Request) -> Answer:
        data = await _body(request)
        tab = controller.tab(data.get("tab"), controller.owner_of(request))
        if tab is None:
            known = controller.tabs.by_key(data.get("tab")) is not None
            return {"ok": False, "error": messages.NOT_YOURS if known else messages.GONE}
        out = await handler(tab, data)
        names = data.get("panels")
        if isinstance(names, list) and "html" in out and controller.panels is not None:
            # The side panels in view come with the stage they follow: one round trip a click.
            names = [str(name) for name in names[:MAX_PANELS]]
            out["panels"] = await controller.panels(tab, names, request)
        return out

    return endpoint


async def _open(controller: Controller, request: Request) -> Answer:
    if controller.ctx.token is not None:
        return {"ok": False, "error": messages.LOCKED_SHELL}
    tab = controller.new_tab(None, owner=controller.owner_of(request))
    if not await controller.reset(tab, {}):
        await controller.close(tab)  # a full server: no tab left behind
        return {"ok": False, "error": tab.notice.text, "html": controller.html(tab)}
    return {**answer(controller, tab, True), "tab": tab.key}


async def _body(request: Request) -> dict[str, Any]:
    raw = await request.body()
    if len(raw) > MAX_BODY_BYTES:
        raise HTTPException(413, f"a stage call is at most {MAX_BODY_BYTES // 1024} KiB")
    try:
        data = load_untrusted(raw or b"{}")
    except ValueError as exc:
        raise HTTPException(400, f'send a JSON object such as {{"tab": "<key>"}} ({exc})') from None
    if not isinstance(data, dict):
        raise HTTPException(400, 'send a JSON object such as {"tab": "<key>"}')
    return data
