"""The playground's Gradio page: its layout and event handlers.

``build_blocks(controller, path)`` lays out the page: the header, the reset panel, the action
form and autoplay on the left, the stage (openenv.web.stage) on the right, and the tabs below it:
Tools for a tool (MCP) environment (a form per tool, built from its
schema), Rewards (each step's reward broken into its rubric components, a stacked chart, time travel
through the recorded episode, an exported JSONL loaded back, two runs compared), State, Last
response, Python, README, and an environment's own tab (``gradio_builder``).

Each browser tab opens its own session through the server's session manager (or adopts the one
the fast shell opened before Gradio loaded) and closes it when the tab goes away (Gradio's unload
event) or when the manager reaps it as idle. The stage is the shell's: the same script
(``assets/stage.js``) on the same routes (:mod:`openenv.web.stage.api`); reset with options,
the action form and the side panels go through Gradio events.
"""

from __future__ import annotations

import html
import inspect
import sys
from collections.abc import Callable
from typing import Any

import gradio as gr
from gradio import route_utils

from openenv.server.context import ServerContext
from openenv.web import forms
from openenv.web.episode.video import env_fps
from openenv.web.page.extension import PlaygroundAPI
from openenv.web.page.snippet import client_names, python_snippet
from openenv.web.page.tools import tools_of, tools_tab
from openenv.web.page.widgets import widget
from openenv.web.rewards import panel as reward_panel
from openenv.web.stage import messages
from openenv.web.stage.controller import Controller
from openenv.web.stage.html import code_block, json_block
from openenv.web.stage.tabs import WebTab
from openenv.web.static import asset

# The load event's js: the key of the episode the fast shell started, to adopt ("" for none).
HANDOFF_JS = "() => (window.openenvShell ? window.openenvShell.handoff() : '')"


def build_blocks(
    controller: Controller,
    path: str,
    gradio_builder: Callable[[PlaygroundAPI], Any] | None = None,
    custom_tab_name: str = "Custom",
) -> gr.Blocks:
    """The Gradio page of one environment server."""
    ctx = controller.ctx
    page = _Page(controller, path)
    with gr.Blocks(title=f"{ctx.package.title} · OpenEnv playground") as demo:
        gr.HTML(header_html(ctx), elem_id="oe-header")
        if ctx.token is not None:
            page.lock_panel()
        with gr.Row(equal_height=False):
            with gr.Column(scale=1, min_width=280, elem_id="oe-controls"):
                page.reset_panel()
                page.action_form()
                page.autoplay_panel()
            with gr.Column(scale=4, min_width=520):
                page.stage_component()
        tools = bool(tools_of(ctx.env_cls))
        with gr.Tabs(elem_id="oe-tabs", selected="tools" if tools else "rewards"):
            if tools:  # a tool env's own controls: a form per tool, built from its schema
                with gr.Tab("Tools", id="tools"):
                    tools_tab(PlaygroundAPI(ctx, controller, page.stage))
            with gr.Tab("Rewards", id="rewards"):
                page.rewards_box, page.rewards = reward_panel.build(controller)
            with gr.Tab("State", id="state"):
                page.state_box = gr.HTML(elem_id="oe-state")
            with gr.Tab("Last response", id="raw"):
                page.raw_box = gr.HTML(elem_id="oe-raw")
            with gr.Tab("Python", id="python"):
                page.code_box = gr.HTML(elem_id="oe-python")
            with gr.Tab("README", id="readme"):
                _readme_component(_readme(ctx))
            if gradio_builder is not None:
                with gr.Tab(custom_tab_name, id="custom"):
                    built = gradio_builder(PlaygroundAPI(ctx, controller, page.stage))
                    if isinstance(built, gr.Blocks):
                        built.render()
        page.wire(demo)
    return demo


class _Page:
    """The components of the page and their event handlers."""

    def __init__(self, controller: Controller, path: str) -> None:
        self.controller = controller
        self.ctx = controller.ctx
        self.path = path
        self.option_specs = forms.reset_fields(self.ctx.env_cls)
        self.action_specs = forms.fields_from_model(self.ctx.action_cls)
        self.names = client_names(self.ctx.package, self.ctx.action_cls)

    # -- layout ----------------------------------------------------------------------------

    lock_group: gr.Group | None = None

    def lock_panel(self) -> None:
        with gr.Group(elem_id="oe-lock") as self.lock_group:
            self.token_box = gr.Textbox(
                label="API token",
                type="password",
                placeholder="the server's OPENENV_API_TOKEN",
                elem_id="oe-token",
            )
            self.unlock_btn = gr.Button("Unlock", variant="primary", elem_id="oe-unlock")
            self.lock_msg = gr.HTML(elem_id="oe-lock-msg")

    def reset_panel(self) -> None:
        gr.HTML('<p class="oe-panel-title">Episode</p>')
        self.seed = gr.Textbox(
            label="seed", placeholder="random", info="a whole number replays an episode",
            elem_id="oe-seed",
        )  # fmt: skip
        self.option_inputs = [widget(spec, f"oe-opt-{spec.name}") for spec in self.option_specs]
        self.reset_btn = gr.Button("↺ Reset", variant="primary", elem_id="oe-reset")
        self.reset_msg = gr.HTML(elem_id="oe-reset-msg", elem_classes=["oe-form-msg"])

    def action_form(self) -> None:
        # Plain columns and radios rather than accordions, sliders and dropdowns: every
        # component type is one more script the page loads before it is usable.
        with gr.Column(variant="panel", elem_id="oe-form"):
            gr.HTML('<p class="oe-panel-title">Action form</p>')
            self.action_inputs = [
                widget(spec, f"oe-field-{spec.name}") for spec in self.action_specs
            ]
            self.step_btn = gr.Button("Step", variant="secondary", elem_id="oe-step")
            self.form_msg = gr.HTML(elem_id="oe-form-msg", elem_classes=["oe-form-msg"])

    def autoplay_panel(self) -> None:
        with gr.Column(variant="panel", elem_id="oe-autoplay"):
            gr.HTML('<p class="oe-panel-title">Autoplay random actions</p>')
            self.play_steps = gr.Textbox(
                value="0", label="steps", info="0 = until done", elem_id="oe-play-steps"
            )
            fps = f"{env_fps(self.ctx.env_cls):g}"
            self.play_fps = gr.Radio(
                sorted({"2", "5", "10", "30", "60", fps}, key=float), value=fps,
                label="steps per second", elem_id="oe-play-fps",
            )  # fmt: skip
            self.play_agent = gr.Checkbox(
                False, label=f"🤖 the agent plays ({self._agent_name()})", elem_id="oe-play-agent",
                info="instead of random actions; any move of yours takes over",
            )  # fmt: skip
            self.agent_replies = gr.Checkbox(
                False, label="🤖 the agent answers each of my moves", elem_id="oe-agent-replies",
                info="two-player games with a second player (opponent: human, self)",
            )  # fmt: skip
            with gr.Row():
                self.play_btn = gr.Button("▶ Play", elem_id="oe-play", min_width=60)
                self.stop_btn = gr.Button("■ Stop", elem_id="oe-stop", min_width=60)

    def _agent_name(self) -> str:
        try:
            return self.controller.agent.name
        except Exception as exc:  # the operator's OPENENV_AGENT: said on the page, not fatal
            return f"not set up: {exc}"

    def stage_component(self) -> None:
        # The stage script calls the stage routes itself (one API with the fast shell); Gradio
        # holds the drawn stage as the component's value, which other events replace.
        self.stage = gr.HTML(
            '<div class="oe-stage"><section class="oe-main"><div class="oe-view">'
            '<div class="oe-empty">Starting…</div></div></section></div>',
            js_on_load=asset("stage.js") + asset("page.js"),
            elem_id="oe-stage",
        )
        self.shell_key = gr.Textbox(visible=False, elem_id="oe-shell-key")

    # -- events ----------------------------------------------------------------------------

    def wire(self, demo: gr.Blocks) -> None:
        fast = {"concurrency_limit": None, "show_progress": "hidden"}
        # The load event first asks the fast shell (openenv.web.shell) for the tab it opened.
        demo.load(self.on_load, self.shell_key, self.stage, js=HANDOFF_JS, **fast)
        demo.unload(self.on_unload)
        if self.lock_group is not None:
            outputs = [self.stage, self.lock_group, self.lock_msg, self.token_box]
            self.unlock_btn.click(self.on_unlock, [self.token_box], outputs, **fast)
            self.token_box.submit(self.on_unlock, [self.token_box], outputs, **fast)
        self.reset_btn.click(
            self.on_reset, {self.seed, *self.option_inputs}, [self.stage, self.reset_msg], **fast
        )
        self.step_btn.click(
            self.on_step, set(self.action_inputs), [self.stage, self.form_msg], **fast
        )
        # One event refreshes every panel: two events on the same change, each "always_last",
        # re-ran each other for as long as the stage kept changing (Gradio 6.31), a pair of
        # queue calls per autoplay frame.
        self.stage.change(
            self.on_refresh,
            None,
            [self.state_box, self.raw_box, self.code_box, self.rewards_box],
            trigger_mode="always_last",
            **fast,
        )
        self.play_btn.click(
            None, [self.play_steps, self.play_fps, self.play_agent], None,
            js="(steps, fps, agent) => { window.openenvPlayground.play(steps, fps, agent); }",
        )  # fmt: skip
        self.agent_replies.change(
            None, [self.agent_replies], None,
            js="(on) => { window.openenvPlayground.setReplies(on); }",
        )  # fmt: skip
        self.stop_btn.click(None, None, None, js="() => { window.openenvPlayground.stop(); }")

    def _tab(self, request: gr.Request) -> WebTab:
        """This page's tab; a page whose tab went away (closed, reaped) gets a new one here,
        where the visitor asks to start again (Reset, Unlock)."""
        tab = self.controller.tabs.by_hash(request.session_hash)
        if tab is not None:
            return tab
        owner = self.controller.owner_of(request)
        return self.controller.new_tab(request.session_hash, owner=owner)

    async def on_load(self, shell_key: str, request: gr.Request):
        adopted = self.controller.adopt(
            shell_key, request.session_hash, self.controller.owner_of(request)
        )
        if adopted is not None:  # the episode the shell started carries on
            return self.controller.html(adopted)
        tab = self._tab(request)
        if tab.authorized:
            shared = request.query_params.get("episode")  # a shared link: replay its episode
            if shared:
                await self.controller.replay_link(tab, shared)
            else:
                await self.controller.reset(tab, {})
        return self.controller.html(tab)

    async def on_unload(self, request: gr.Request) -> None:
        tab = self.controller.tabs.by_hash(request.session_hash)
        if tab is not None:
            await self.controller.close(tab)

    async def on_unlock(self, token: str, request: gr.Request):
        tab = self._tab(request)
        if not self.controller.unlock(tab, token):
            return gr.skip(), gr.skip(), _msg(tab.notice.text, "error"), ""
        await self.controller.reset(tab, {})
        return self.controller.html(tab), gr.update(visible=False), "", ""

    async def on_reset(self, form: dict[Any, Any], request: gr.Request):
        tab = self._tab(request)
        if not tab.authorized:
            return gr.skip(), _msg(messages.TOKEN_FIRST, "error")
        values = [form[c] for c in self.option_inputs]
        options, errors = forms.parse_values(self.option_specs, values)
        options = forms.spread(self.option_specs, options)
        seed = form[self.seed]
        if str(seed or "").strip():
            try:
                options["seed"] = _seed(seed)
            except ValueError as exc:
                errors.insert(0, f"seed: {exc}")
        if errors:
            return gr.skip(), _msg("; ".join(errors), "error")
        ok = await self.controller.reset(tab, options)
        return self.controller.html(tab), _msg(tab.notice.text if not ok else "", "error")

    async def on_step(self, form: dict[Any, Any], request: gr.Request):
        tab = self.controller.tabs.by_hash(request.session_hash)
        if tab is None:
            return gr.skip(), _msg(messages.GONE, "error")
        values = [form[c] for c in self.action_inputs]
        action, errors = forms.parse_values(self.action_specs, values)
        if errors:
            return gr.skip(), _msg("Not sent, nothing changed: " + "; ".join(errors), "error")
        if not await self.controller.step(tab, action):
            return gr.skip(), _msg(tab.notice.text, "error")
        return self.controller.html(tab), _msg("Step applied.", "ok")

    async def on_refresh(self, request: gr.Request):
        tab = self.controller.tabs.by_hash(request.session_hash)
        if tab is None or not tab.authorized:
            return "", "", "", gr.skip()
        state = await self.controller.state(tab)
        code = python_snippet(
            self.names,
            self.ctx.web.get("client_url") or _server_url(request, self.path),
            tab.episode.last_action or _first_legal(tab),
            tab.episode.reset_kwargs,
            needs_token=self.ctx.token is not None,
        )
        return (
            json_block(state, "No session: press Reset."),
            json_block(tab.episode.last_response, "Nothing yet."),
            code_block(code, "python"),
            self.rewards.html(tab),
        )


# -- helpers -------------------------------------------------------------------------------


def _seed(value: Any) -> int:
    try:
        number = float(value)
    except (TypeError, ValueError):
        raise ValueError(f"must be a whole number ≥ 0, got {value!r}") from None
    if not number.is_integer() or number < 0:
        raise ValueError(f"must be a whole number ≥ 0, got {value!r}")
    return int(number)


def _msg(text: str, kind: str) -> str:
    return f'<span class="oe-{kind}">{html.escape(text)}</span>' if text else ""


def _first_legal(tab: WebTab) -> dict[str, Any] | None:
    if not tab.shows.legal:
        return None
    return tab.shows.legal[0].fields()


def _server_url(request: gr.Request, path: str) -> str:
    """This server's URL as the visitor reaches it (proxy headers included), without ``/web``."""
    root = route_utils.get_root_url(
        request=request.request, route_path="/gradio_api/queue/join", root_path=None
    )
    root = root.rstrip("/")
    return root[: -len(path)] if root.endswith(path) else root


def header_html(ctx: ServerContext) -> str:
    """The page header: emoji, title, version, description and tags."""
    m = ctx.manifest
    tags = "".join(f'<span class="oe-tag">{html.escape(str(t))}</span>' for t in m.tags)
    version = f" <small>v{html.escape(m.version)}</small>" if m.version else ""
    return (
        f'<div class="oe-header"><span class="oe-emoji">{html.escape(m.emoji)}</span><div>'
        f"<h1>{html.escape(m.display_title)}{version}</h1><p>{html.escape(m.description)}</p></div>"
        f'<div class="oe-tags">{tags}<a class="oe-tag oe-watch-link" href="watch" '
        'title="Every live session of this server (web tabs, notebooks, trainers), to watch">'
        "👁 live sessions</a></div></div>"
    )


def _readme_component(markdown: str) -> gr.components.Component:
    """The README as HTML rendered here (one component type fewer for the page to load), or
    as gr.Markdown when markdown-it-py (a dependency of Gradio's CLI) is unavailable."""
    try:
        from markdown_it import MarkdownIt
    except ImportError:
        return gr.Markdown(markdown, elem_id="oe-readme")
    rendered = MarkdownIt("commonmark", {"html": False}).enable("table").render(markdown)
    return gr.HTML(f'<div class="oe-readme prose">{rendered}</div>', elem_id="oe-readme")


def _readme(ctx: ServerContext) -> str:
    if ctx.package.readme:
        return ctx.package.readme
    module = sys.modules.get(ctx.env_cls.__module__) if ctx.env_cls is not None else None
    doc = inspect.getdoc(module) if module is not None else None
    return f"# {ctx.package.title}\n\n{doc or ctx.manifest.description or 'No README yet.'}"
