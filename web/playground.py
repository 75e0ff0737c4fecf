"""The /web playground: a Gradio page on every environment server.

``mount_playground(app, ctx, path="/web")`` (called by ``create_app``) mounts the page (built by
:mod:`openenv.web.page.blocks`), its plain HTTP routes (:mod:`openenv.web.page.routes`: sessions,
export, README assets, favicon), the stage's routes (:mod:`openenv.web.stage.api`) and the fast
shell (:mod:`openenv.web.shell`) that makes the page usable before Gradio's bundle arrives. All
drive the visitors' sessions through one :class:`~openenv.web.stage.controller.Controller`.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any

import gradio as gr
from fastapi import FastAPI

from openenv.server.context import ServerContext
from openenv.web.episode.demos import add_demo_routes
from openenv.web.page import routes
from openenv.web.page.blocks import build_blocks
from openenv.web.page.budget import BudgetedController, watch_replay_requests
from openenv.web.page.extension import PlaygroundAPI
from openenv.web.page.watch import add_watch_routes
from openenv.web.shell import markup as shell
from openenv.web.stage.api import add_stage_routes
from openenv.web.static import asset

SYSTEM_FONTS = (
    "ui-sans-serif", "system-ui", "-apple-system", "Segoe UI", "Roboto", "Helvetica Neue",
    "Arial", "Noto Sans", "DejaVu Sans", "sans-serif",
)  # fmt: skip
MONO_FONTS = (
    "ui-monospace",
    "SFMono-Regular",
    "Menlo",
    "Consolas",
    "DejaVu Sans Mono",
    "monospace",
)


QUEUE_IDLE_POLL_S = 0.02  # Gradio: 0.001 (0.05 on Windows)
PROGRESS_POLL_S = 0.1  # Gradio: 0.01 (0.1 on Windows)


# Gradio 6.31 records every event's inputs and outputs in the browser's localStorage ("run
# history"), rewriting the whole record after each one: with a frame in every step's output that
# is hundreds of KB per step, and Chromium's autoplay of CartPole fell from 40 to 5 frames/s.
# The playground keeps its own episode record (Rewards tab, JSONL export); older Gradio 6
# releases have no such option.
NO_RUN_HISTORY = (
    {"run_history": False}
    if "run_history" in inspect.signature(gr.mount_gradio_app).parameters
    else {}
)


def mount_playground(
    app: FastAPI,
    ctx: ServerContext,
    path: str = "/web",
    gradio_builder: Callable[[PlaygroundAPI], Any] | None = None,
    custom_tab_name: str = "Custom",
    custom_first: bool = False,
) -> gr.Blocks:
    """Mount the playground at ``path`` on ``app``; return the Gradio Blocks.

    ``custom_first``: the env's own UI (``gradio_builder``) is the page's first screen, the
    generic playground folded below it (and no fast shell: it would draw the stage first)."""
    controller = BudgetedController(ctx)  # tabs, page loads and replays bounded
    ctx.web["controller"] = controller
    ctx.web["path"] = path
    routes.add_routes(app, controller, path)
    routes.add_favicon(app, ctx.manifest.emoji)
    add_stage_routes(app, controller, path)  # before Gradio's mount catches them
    watch_replay_requests(app.router.routes, f"{path}/stage/replay")  # stopped when it leaves
    add_watch_routes(app, controller, path)
    if controller.demos is not None:  # the operator keeps demonstrations (off by default)
        add_demo_routes(app, ctx, controller.demos.store, path)
    demo = build_blocks(controller, path, gradio_builder, custom_tab_name, custom_first)
    gr.mount_gradio_app(
        app,
        demo,
        path=path,
        footer_links=[],
        theme=theme(),
        css=asset("playground.css"),
        head=routes.favicon_link(ctx.manifest.emoji),
        show_error=True,
        **NO_RUN_HISTORY,
    )
    # Gradio's queue polls every 1 ms when it has nothing to do (and its progress loop every
    # 10 ms): over 1,000 wake-ups a second per mounted page, forever (12 % of a core for the
    # catalog's 15 pages). Board clicks and autoplay bypass the queue (the stage's server
    # functions); reset and the forms wait at most QUEUE_IDLE_POLL_S more. We show no progress
    # bars.
    demo._queue.sleep_when_free = QUEUE_IDLE_POLL_S
    demo._queue.progress_update_sleep_when_free = PROGRESS_POLL_S
    routes.start_queue_on_first_request(app, path, demo)
    routes.refuse_uploads(app, path)  # the playground takes no files
    if not custom_first:
        shell.mount_shell(app, path, shell.shell_html(ctx))
    ctx.web["blocks"] = demo
    return demo


def theme() -> gr.themes.Base:
    """Gradio's base theme with system fonts (no web fonts to download)."""
    return gr.themes.Base(
        primary_hue="indigo", neutral_hue="slate", font=SYSTEM_FONTS, font_mono=MONO_FONTS
    )
