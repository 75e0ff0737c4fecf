"""The Harbor server's UI at ``/web``: Tasks, a run card, Runs and Setup.

``harbor_tab(service)`` returns the ``gradio_builder`` that ``create_app`` takes; with
``custom_first=True`` the UI is the page's first screen (the generic playground folds below)::

    app = create_app(HarborToolEnv, gradio_builder=harbor_tab(service),
                     custom_tab_name="Harbor", custom_first=True)

A server operator turns "Add from the Hub" off with ``harbor_tab(service, allow_hub_add=False)``
(on by default). When on, a visitor can add a public Hub dataset tagged ``harbor`` as a served
split: it is downloaded to this server's disk (the Hugging Face cache), so adding is bounded:
one dataset's tasks at most ``MAX_HUB_BYTES`` (2 GiB) and ``MAX_TASKS``, at most
``hub_adds.MAX_ADDED`` (8) datasets added and ``hub_adds.MAX_RUNNING`` (2) downloading at once;
an added dataset can be removed again (its copy deleted), the ones the server started with cannot.

One module per part: :mod:`.cards` (task cards, a task's page), :mod:`.timeline` (a run's
timeline and trace checks), :mod:`.compare` (two to four runs side by side), :mod:`.setup`
(what the server can run), :mod:`.downloads` (a run's files), :mod:`.hub_adds` (datasets added
from the Hub), and the tabs' Gradio layout and events (:mod:`.page`, :mod:`.tasks_tab`,
:mod:`.hub_tab`, :mod:`.run_card`, :mod:`.runs_tab`).
Gradio is imported only when the page is built.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from openenv.harbor.service import HarborService


def harbor_tab(
    service: HarborService,
    *,
    downloads_dir: Path | None = None,
    download_routes: str | None = None,
    allow_hub_add: bool = True,
) -> Callable[[Any], None]:
    """The builder of the Harbor UI on ``service``.

    A finished run's downloads are links to ``download_routes`` (the server's run routes, e.g.
    ``"/harbor_env/runs"``: ``{id}/result.json``, ``/training_trace.json``, ``/capture.json``)
    when given and the server has no API token (a link cannot carry it); otherwise files
    written under ``downloads_dir`` (a fresh temporary folder by default). ``allow_hub_add``:
    visitors may add datasets from the Hub (see the module's docstring for the bounds)."""

    def build(api: Any) -> None:
        from openenv.harbor.web import page
        from openenv.harbor.web.downloads import Downloads
        from openenv.harbor.web.hub_adds import HubAdds

        links = None
        if download_routes and getattr(api.ctx, "token", None) is None:
            depth = str(api.ctx.web.get("path", "/web")).strip("/").count("/") + 1
            links = "/".join([".."] * depth) + "/" + download_routes.strip("/")
        hub = HubAdds(service) if allow_hub_add else None
        owner_of = getattr(api.ctx, "owner_of", None)  # a visitor sees only its own runs
        page.build(service, Downloads(service, downloads_dir), links, hub, owner_of)

    return build


__all__ = ["harbor_tab"]
