"""The playground page's side panels (State, Last response, Python, Rewards) as HTML for a tab,
served by the stage's panels route (:mod:`openenv.web.stage.api`) rather than a Gradio event:
the page (``assets/page.js``) asks for the ones in view that are behind the stage."""

from __future__ import annotations

import weakref
from typing import Any

from gradio import route_utils

from openenv.web.page.snippet import client_names, python_snippet
from openenv.web.rewards.panel import RewardPanel
from openenv.web.stage.controller import Controller
from openenv.web.stage.html import code_block, json_block
from openenv.web.stage.tabs import WebTab

PANELS = ("state", "raw", "code", "rewards")


class SidePanels:
    """One page's side panels; ``path`` is where the page is mounted (``/web``)."""

    def __init__(self, controller: Controller, path: str, rewards: RewardPanel) -> None:
        self.controller = controller
        self.ctx = controller.ctx
        self.path = path
        self.rewards = rewards
        self.names = client_names(self.ctx.package, self.ctx.action_cls)
        # What each tab's page was last sent of the State, Last response and Python panels
        # (an unchanged panel is not sent again); freed with the tab.
        self._sent: weakref.WeakKeyDictionary[WebTab, dict[str, str]] = weakref.WeakKeyDictionary()

    async def for_tab(self, tab: WebTab, names: list[str], request: Any) -> dict[str, str]:
        """The side panels ``names`` (state, raw, code, rewards) of ``tab`` as HTML, for the
        stage's panels route; a panel unchanged since the last call for ``names`` naming it is
        left out (``"fresh"`` in ``names``: the page drew its panels anew, all are sent)."""
        if not tab.authorized:
            return {}
        wanted = {name for name in names if name in PANELS}
        sent = self._sent.setdefault(tab, {})
        if "fresh" in names:
            sent.clear()
        out: dict[str, str] = {}
        for name in PANELS:
            if name not in wanted:
                continue
            if name == "state":
                shown = json_block(await self.controller.state(tab), "No session: press Reset.")
            elif name == "raw":
                shown = json_block(tab.episode.last_response, "Nothing yet.")
            elif name == "code":
                shown = self._code(tab, request)
            else:  # the reward panel's own calls redraw it too: never left out as unchanged
                out[name] = self.rewards.html(tab)
                continue
            if sent.get(name) != shown:
                out[name] = sent[name] = shown
        return out

    def _code(self, tab: WebTab, request: Any) -> str:
        code = python_snippet(
            self.names,
            self.ctx.web.get("client_url") or _server_url(request, self.path),
            tab.episode.last_action or _first_legal(tab),
            tab.episode.reset_kwargs,
            needs_token=self.ctx.token is not None,
        )
        return code_block(code, "python")


def _first_legal(tab: WebTab) -> dict[str, Any] | None:
    if not tab.shows.legal:
        return None
    return tab.shows.legal[0].fields()


def _server_url(request: Any, path: str) -> str:
    """This server's URL as the visitor reaches it (proxy headers included), without ``/web``;
    ``request``: a stage call's (Starlette) or a Gradio event's."""
    raw = getattr(request, "request", None) or request
    root = route_utils.get_root_url(request=raw, route_path="/stage/panels", root_path=None)
    root = root.rstrip("/")
    return root[: -len(path)] if root.endswith(path) else root
