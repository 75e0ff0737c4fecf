"""The playground's Gradio page: its layout and event handlers.

``build_blocks(controller, path)`` lays out the page: the header, the reset panel, the action
form and autoplay on the left, the stage (openenv.web.stage) on the right, and the tabs below it:
Tools for a tool (MCP) environment (a form per tool, built from its
schema), Rewards (each step's reward broken into its rubric components, a stacked chart, time travel
through the recorded episode, an exported JSONL loaded back, two runs compared), State, Last
response, Python, README, and an environment's own tab (``gradio_builder``).

Presentation mode (:mod:`openenv.web.page.present`) hides all but the stage and a bar. The
header (:mod:`~openenv.web.page.header`), the README tab (:mod:`~openenv.web.page.readme`), the
"you play" sides (:mod:`~openenv.web.page.sides`) and the side panels
(:mod:`~openenv.web.page.panels`) are drawn by modules of their own.

Each browser tab opens its own session through the server's session manager (or adopts the one
the fast shell opened before Gradio loaded) and closes it when the tab goes away (Gradio's unload
event) or when the manager reaps it as idle. The stage is the shell's: the same script
(``assets/stage.js``) on the same routes (:mod:`openenv.web.stage.api`); reset with options,
the action form and the side panels go through Gradio events.
"""

from __future__ import annotations

import html
from collections.abc import Callable
from typing import Any

import gradio as gr

from openenv.web import forms
from openenv.web.episode.video import env_fps
from openenv.web.page.extension import PlaygroundAPI
from openenv.web.page.header import header_html
from openenv.web.page.panels import SidePanels
from openenv.web.page.present import present_html, present_player
from openenv.web.page.readme import readme_component, readme_markdown
from openenv.web.page.sides import GENERIC_SIDES, side_choices, two_player_sides
from openenv.web.page.tools import tools_of, tools_tab
from openenv.web.page.widgets import widget
from openenv.web.rewards import panel as reward_panel
from openenv.web.stage import messages
from openenv.web.stage.api import SEATS, agents_turn
from openenv.web.stage.controller import Controller
from openenv.web.stage.html import FULL
from openenv.web.stage.tabs import WebTab
from openenv.web.static import asset

# The load event's js: the key of the episode the fast shell started, to adopt ("" for none).
HANDOFF_JS = "() => (window.openenvShell ? window.openenvShell.handoff() : '')"


def build_blocks(
    controller: Controller,
    path: str,
    gradio_builder: Callable[[PlaygroundAPI], Any] | None = None,
    custom_tab_name: str = "Custom",
    custom_first: bool = False,
) -> gr.Blocks:
    """The Gradio page of one environment server.

    ``custom_first`` (with a ``gradio_builder``): the environment's own UI is the page, drawn
    under the header; the generic playground (stage, controls and their tabs) folds into a
    closed "Playground" section below it, one click away."""
    if custom_first and gradio_builder is None:
        raise ValueError("custom_first needs a gradio_builder: the env's own UI to put first")
    ctx = controller.ctx
    page = _Page(controller, path)
    with gr.Blocks(title=f"{ctx.package.title} · OpenEnv playground") as demo:
        # presentation mode's bar (?present=1, the Present button): hidden until then
        gr.HTML(present_html(ctx, *present_player(controller)), elem_id="oe-present")
        gr.HTML(header_html(ctx), elem_id="oe-header")
        if ctx.token is not None:
            page.lock_panel()
        if custom_first and gradio_builder is not None:
            with gr.Column(elem_id="oe-custom-first"):
                _build_custom(gradio_builder, PlaygroundAPI(ctx, controller, page.stage_slot()))
            with gr.Accordion(
                "Playground: the environment by hand (reset, step, tools)",
                open=False,
                elem_id="oe-playground-fold",
            ):
                page.play_area()
        else:
            page.play_area(gradio_builder, custom_tab_name)
        page.wire(demo)
    return demo


def _build_custom(gradio_builder: Callable[[PlaygroundAPI], Any], api: PlaygroundAPI) -> None:
    built = gradio_builder(api)
    if isinstance(built, gr.Blocks):
        built.render()


class _Page:
    """The components of the page and their event handlers."""

    def __init__(self, controller: Controller, path: str) -> None:
        self.controller = controller
        self.ctx = controller.ctx
        self.path = path
        self.option_specs = forms.reset_fields(self.ctx.env_cls)
        self.action_specs = forms.fields_from_model(self.ctx.action_cls)

    # -- layout ----------------------------------------------------------------------------

    lock_group: gr.Group | None = None

    def play_area(
        self,
        gradio_builder: Callable[[PlaygroundAPI], Any] | None = None,
        custom_tab_name: str = "Custom",
    ) -> None:
        """The stage, the controls beside it, and the tabs below (the env's own tab last)."""
        ctx, controller = self.ctx, self.controller
        # The stage first (on a phone too), the controls beside it on a desktop; the stage
        # column stays in view while the controls and the tabs below scroll.
        with gr.Row(equal_height=False, elem_id="oe-play-row"):
            with gr.Column(scale=3, min_width=320, elem_id="oe-stage-col"):
                self.play_bar()
                self.stage_component()
            with gr.Column(scale=1, min_width=260, elem_id="oe-controls"):
                self.reset_panel()
                self.autoplay_panel()
                self.developer_panel()
        tools = bool(tools_of(ctx.env_cls))
        with gr.Tabs(elem_id="oe-tabs", selected="tools" if tools else "rewards"):
            if tools:  # a tool env's own controls: a form per tool, built from its schema
                with gr.Tab("Tools", id="tools"):
                    tools_tab(PlaygroundAPI(ctx, controller, self.stage))
            with gr.Tab("Rewards", id="rewards"):
                self.rewards_box, rewards = reward_panel.build(controller)
                self.panels = SidePanels(controller, self.path, rewards)
            with gr.Tab("Python", id="python"):
                self.code_box = gr.HTML(elem_id="oe-python")
            with gr.Tab("README", id="readme"):
                readme_component(readme_markdown(ctx))
            if gradio_builder is not None:
                with gr.Tab(custom_tab_name, id="custom"):
                    _build_custom(gradio_builder, PlaygroundAPI(ctx, controller, self.stage))

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

    def play_bar(self) -> None:
        """Reset (always in view), Play and Stop, above the stage."""
        with gr.Row(elem_id="oe-bar"):
            self.reset_btn = gr.Button(
                "↺ Reset", variant="primary", elem_id="oe-reset", min_width=90, scale=0
            )
            self.play_btn = gr.Button("▶ Play", elem_id="oe-play", min_width=80, scale=0)
            self.stop_btn = gr.Button("■ Stop", elem_id="oe-stop", min_width=80, scale=0)
            self.present_btn = gr.Button(
                "🎬 Present", elem_id="oe-present-btn", min_width=100, scale=0
            )
            self.reset_msg = gr.HTML(elem_id="oe-reset-msg", elem_classes=["oe-form-msg"])

    def reset_panel(self) -> None:
        """The seed and the reset options, folded: Reset works with the defaults."""
        with gr.Accordion("Reset options", open=False, elem_id="oe-options"):
            self.seed = gr.Textbox(
                label="seed", placeholder="random", info="a whole number replays an episode",
                elem_id="oe-seed",
            )  # fmt: skip
            self.option_inputs = [widget(spec, f"oe-opt-{spec.name}") for spec in self.option_specs]

    def developer_panel(self) -> None:
        """The wire: the typed action form, the state and the last response as JSON. Folded
        unless the page was opened with ``?dev=1`` or the environment offers no other control."""
        with gr.Accordion("Developer", open=False, elem_id="oe-dev") as self.dev_panel:
            gr.HTML('<p class="oe-panel-title">Action form</p>')
            self.action_inputs = [
                widget(spec, f"oe-field-{spec.name}") for spec in self.action_specs
            ]
            self.step_btn = gr.Button("Step", variant="secondary", elem_id="oe-step")
            self.form_msg = gr.HTML(elem_id="oe-form-msg", elem_classes=["oe-form-msg"])
            gr.HTML('<p class="oe-panel-title">State</p>')
            self.state_box = gr.HTML(elem_id="oe-state")
            gr.HTML('<p class="oe-panel-title">Last response</p>')
            self.raw_box = gr.HTML(elem_id="oe-raw")

    def autoplay_panel(self) -> None:
        with gr.Accordion("Autoplay", open=False, elem_id="oe-autoplay"):
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
            self.agent_side = None
            sides = two_player_sides(self.ctx)
            per_game = callable(getattr(self.ctx.env_cls, "sides_for", None))
            if sides is not None or per_game:  # "you play": the agent takes the other side
                self.agent_side = gr.Radio(
                    side_choices(sides or GENERIC_SIDES), value="either", label="you play",
                    elem_id="oe-agent-side", visible=sides is not None,
                    info="with the agent answering: it plays the other side, and opens for it",
                )  # fmt: skip

    def _agent_name(self) -> str:
        try:
            return self.controller.agent.name
        except Exception as exc:  # the operator's OPENENV_AGENT: said on the page, not fatal
            return f"not set up: {exc}"

    def stage_slot(self) -> gr.HTML:
        """The stage component, made (not yet placed) so that a tab drawn before it can name
        it as an output; :meth:`stage_component` places it."""
        if not hasattr(self, "stage"):
            # The stage script calls the stage routes itself (one API with the fast shell);
            # Gradio holds the drawn stage as the component's value, which other events replace.
            self.stage = gr.HTML(
                '<div class="oe-stage"><section class="oe-main"><div class="oe-view">'
                '<div class="oe-empty">Starting…</div></div></section></div>',
                js_on_load=asset("stage.js") + asset("page.js"),
                elem_id="oe-stage",
                render=False,
            )
        return self.stage

    def stage_component(self) -> None:
        self.stage_slot().render()
        self.shell_key = gr.Textbox(visible=False, elem_id="oe-shell-key")

    # -- events ----------------------------------------------------------------------------

    def wire(self, demo: gr.Blocks) -> None:
        fast = {"concurrency_limit": None, "show_progress": "hidden"}
        # The load event first asks the fast shell (openenv.web.shell) for the tab it opened.
        demo.load(self.on_load, self.shell_key, [self.stage, self.dev_panel], js=HANDOFF_JS, **fast)
        demo.unload(self.on_unload)
        if self.lock_group is not None:
            outputs = [self.stage, self.lock_group, self.lock_msg, self.token_box]
            self.unlock_btn.click(self.on_unlock, [self.token_box], outputs, **fast)
            self.token_box.submit(self.on_unlock, [self.token_box], outputs, **fast)
        seats = [self.agent_replies] + ([self.agent_side] if self.agent_side is not None else [])
        self.reset_btn.click(
            self.on_reset,
            {self.seed, *self.option_inputs, *seats},
            [self.stage, self.reset_msg, *self._sides_output()],
            **fast,
        )
        self.step_btn.click(
            self.on_step, set(self.action_inputs), [self.stage, self.form_msg], **fast
        )
        # The side panels follow the stage without a Gradio event: the page asks the stage's
        # panels route (openenv.web.stage.api) for the ones in view that are behind the stage
        # (assets/page.js), one plain call instead of a queue round trip (~16 ms of server CPU
        # each, measured) per click, none when no panel is in view.
        self.controller.panels = self.panels.for_tab
        self.play_btn.click(
            None, [self.play_steps, self.play_fps, self.play_agent], None,
            js="(steps, fps, agent) => { window.openenvPlayground.play(steps, fps, agent); }",
        )  # fmt: skip
        self.agent_replies.change(
            None, [self.agent_replies], None,
            js="(on) => { window.openenvPlayground.setReplies(on); }",
        )  # fmt: skip
        if self.agent_side is not None:
            self.agent_side.change(
                None, [self.agent_side], None,
                js="(side) => { window.openenvPlayground.setSide(side); }",
            )  # fmt: skip
        self.stop_btn.click(None, None, None, js="() => { window.openenvPlayground.stop(); }")
        self.present_btn.click(
            None, None, None, js="() => { window.openenvPlayground.present(true); }"
        )

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
            return self.controller.html(adopted), self._developer(adopted, request)
        tab = self._tab(request)
        if tab.authorized:
            shared = request.query_params.get("episode")  # a shared link: replay its episode
            if shared:
                await self.controller.replay_link(tab, shared)
            else:
                await self.controller.reset(tab, {})
        return self.controller.html(tab), self._developer(tab, request)

    def _developer(self, tab: WebTab, request: gr.Request) -> Any:
        """The Developer panel opens by itself with ``?dev=1``, or where the stage offers no
        control (no buttons, sliders, typed action, clicks or tools) — not when it has none
        because the server is full (the stage says so; the panel would only show emptiness)."""
        asked = request.query_params.get("dev", "") not in ("", "0", "false")
        if tab.notice.kind == FULL and not asked:  # the stage says the server is full
            return gr.skip()
        return gr.update(open=True) if asked or not self._has_controls(tab) else gr.skip()

    def _has_controls(self, tab: WebTab) -> bool:
        shows = tab.shows
        pointable = 'data-click=""' in shows.html or "oe-cell-act" in shows.html
        return bool(
            shows.legal or shows.sliders or self.controller.typed or pointable
            or tools_of(self.ctx.env_cls) or 'data-keys=""' in shows.html
        )  # fmt: skip

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

    def _sides_output(self) -> list[gr.components.Component]:
        """The "you play" choice, when the env names its sides per game (``sides_for``)."""
        per_game = callable(getattr(self.ctx.env_cls, "sides_for", None))
        return [self.agent_side] if per_game and self.agent_side is not None else []

    def _sides_update(self, options: dict[str, Any] | None) -> list[Any]:
        """The "you play" choice for the game these reset options start: its sides' names, or
        hidden for a game of one player (``sides_for(options)`` of the env returns ``None``)."""
        if not self._sides_output():
            return []
        if options is None:
            return [gr.skip()]
        try:
            sides = self.ctx.env_cls.sides_for(dict(options))
        except Exception:  # the env could not name them: the choice stays as it was
            return [gr.skip()]
        if not (isinstance(sides, list | tuple) and len(sides) == 2):
            return [gr.update(visible=False)]
        named = (str(sides[0])[:40], str(sides[1])[:40])
        return [gr.update(choices=side_choices(named), visible=True)]

    async def on_reset(self, form: dict[Any, Any], request: gr.Request):
        result = await self._reset(form, request)
        return (*result[:2], *self._sides_update(result[2]))

    async def _reset(self, form: dict[Any, Any], request: gr.Request):
        tab = self._tab(request)
        if not tab.authorized:
            return gr.skip(), _msg(messages.TOKEN_FIRST, "error"), None
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
            return gr.skip(), _msg("; ".join(errors), "error"), None
        ok = await self.controller.reset(tab, options)
        side = form.get(self.agent_side) if self.agent_side is not None else None
        if ok and form.get(self.agent_replies) and side in SEATS and agents_turn(tab, side):
            ok = await self.controller.agent_step(tab)  # the visitor plays second: it opens
        shown = self.controller.html(tab), _msg(tab.notice.text if not ok else "", "error")
        return (*shown, options if ok else None)

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
