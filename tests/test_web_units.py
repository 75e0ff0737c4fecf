"""The playground's building blocks, without a browser: forms, drawing, exports, sessions."""

from __future__ import annotations

import io
import json

import numpy as np
import pytest
from grid_world_env.models import GridWorldAction
from grid_world_env.server.environment import GridWorldEnvironment
from PIL import Image
from pydantic import Field, create_model

from openenv.core import Action, Board, Cell, Environment, Frame, Svg, Text
from openenv.core.registry import package_of
from openenv.server import create_app
from openenv.web import forms
from openenv.web.drawing import to_html, to_image, to_png
from openenv.web.drawing.html import fold
from openenv.web.episode.export import episode_gif, episode_jsonl
from openenv.web.page.snippet import ClientNames, client_names, python_snippet
from openenv.web.rewards.sparkline import reward_chart_svg
from openenv.web.stage.controller import Controller
from tests.conftest import run_async as run


class RobotAction(Action):
    speed: float = Field(ge=0, le=2.5, description="metres per second")
    steps: int = Field(default=1, gt=0)
    mode: str = "walk"
    turbo: bool = False
    path: list[int] = Field(default_factory=list)


def specs_by_name(model) -> dict[str, forms.FieldSpec]:
    return {s.name: s for s in forms.fields_from_schema(model.model_json_schema())}


def test_action_schema_becomes_typed_fields():
    specs = specs_by_name(RobotAction)
    assert specs["speed"].kind == "number" and specs["speed"].required
    assert (specs["speed"].minimum, specs["speed"].maximum) == (0, 2.5)
    assert specs["steps"].kind == "int" and specs["steps"].exclusive == (True, False)
    assert specs["turbo"].kind == "bool"
    assert specs["mode"].kind == "string"
    assert specs["path"].kind == "json" and specs["path"].json_type == "array"
    grid = forms.fields_from_schema(GridWorldAction.model_json_schema())
    assert [s.name for s in grid] == ["action"]  # the wire's metadata is not offered
    assert grid[0].choices == ("UP", "DOWN", "LEFT", "RIGHT")


def test_a_hand_written_schema_of_an_any_field_is_a_hint_and_the_field_reads_json():
    """Like the gymnasium server's action: its schema is the first env id's space (Discrete(2)),
    and after a reset to another id the form must still take that id's actions."""
    from typing import Annotated, Any

    from pydantic import WithJsonSchema

    class SpaceAction(Action):
        action: Annotated[Any, WithJsonSchema({"type": "integer", "minimum": 0, "maximum": 1})]
        speed: float = Field(default=1.0, ge=0, le=2.5)

    specs = {s.name: s for s in forms.fields_from_model(SpaceAction)}
    assert specs["action"].kind == "json" and specs["action"].maximum is None
    assert specs["speed"].kind == "number" and specs["speed"].maximum == 2.5  # typed: checked
    order = list(specs)
    for typed, sent in (("5", 5), ("[1.5]", [1.5]), ('"LEFT"', "LEFT")):
        values = {"action": typed, "speed": "", "metadata": ""}
        assert forms.parse_values(list(specs.values()), [values[n] for n in order]) == (
            {"action": sent},
            [],
        )


def test_form_values_are_validated_one_message_per_field():
    specs = forms.fields_from_schema(RobotAction.model_json_schema())
    order = [s.name for s in specs]
    values = {"speed": 3, "steps": 0, "mode": "", "turbo": True, "path": "[1, 2", "metadata": ""}
    data, errors = forms.parse_values(specs, [values[n] for n in order])
    assert "speed: must be ≤ 2.5, got 3" in errors
    assert "steps: must be > 0, got 0" in errors
    assert any(e.startswith("path: not valid JSON") for e in errors)
    assert data == {"turbo": True}  # blank optional fields are left to their defaults
    good = {"speed": "1.5", "steps": 2, "mode": "run", "turbo": False, "path": "[1]"}
    data, errors = forms.parse_values(specs, [good.get(n, "") for n in order])
    assert errors == []
    assert RobotAction(**data).speed == 1.5


def test_reset_options_become_fields():
    class Sized(Environment):
        def reset(self, seed=None, episode_id=None, size: int = 5, hard: bool = False): ...

    size, hard = forms.reset_fields(Sized)
    assert (size.kind, size.default, size.required) == ("int", 5, False)
    assert (hard.kind, hard.default) == ("bool", False)


def test_views_are_drawn_as_html():
    frame = Frame(np.zeros((4, 6, 3), np.uint8))
    img = to_html(frame)
    assert img.startswith('<img class="oe-frame"') and 'width="6" height="4"' in img
    board = to_html(Board([[Cell("X", color="red", label="x")], [Cell("O")]], legend={"X": "me"}))
    assert "--cols:1;--rows:2" in board and 'title="x"' in board and "me</span>" in board
    assert to_html(Text("a < b")) == '<pre class="oe-text">a &lt; b</pre>'
    svg = to_html(Svg('<svg onload="x()"><script>alert(1)</script><rect/></svg>'))
    assert "script" not in svg and "onload" not in svg and "<rect/>" in svg


def test_observations_without_a_view_fold_large_arrays():
    html = to_html(None, {"pixels": [[0] * 20] * 20, "score": 3, "reward": 1, "done": False})
    assert "array(20×20)" in html and "<dt>score</dt>" in html and "reward" not in html
    assert fold(list(range(5))) == [0, 1, 2, 3, 4]
    assert fold(list(range(100))) == "array(100)"
    from openenv.core.frames import encode_frame

    frame = encode_frame(np.zeros((210, 160, 3), dtype=np.uint8)).model_dump()
    assert fold({"screen": frame})["screen"] == (
        f"frame(210×160×3, rows, {len(frame['data'])} B of base64)"
    )


def test_reward_chart_is_inline_svg():
    assert "no steps yet" in reward_chart_svg([])
    chart = reward_chart_svg([-0.1, -0.1, 1.0])
    assert chart.startswith("<svg") and chart.count("<rect") == 3
    assert chart.count('class="oe-bar-neg"') == 2
    assert len(reward_chart_svg([0.5] * 5000)) < 60_000  # long episodes are thinned


def test_board_and_frame_rasterise_for_gifs():
    board = GridWorldEnvironment()
    board.reset(seed=0)
    image = to_image(board.render(), cell_px=20)
    assert image.size == (101, 101)
    assert image.getpixel((5, 5)) == (219, 234, 254)  # the agent's cell background
    frame = Frame(np.full((3, 2, 3), 7, np.uint8))
    assert Image.open(io.BytesIO(to_png(frame))).size == (2, 3)
    assert to_image(Svg('<svg width="30" height="20"/>')).size == (30, 20)  # resvg


def test_exports():
    steps = [{"action": {"a": 1}, "observation": {"x": 1}, "reward": -0.1, "done": False, "x": 9}]
    line = json.loads(episode_jsonl(steps))
    assert line == {"action": {"a": 1}, "observation": {"x": 1}, "reward": -0.1, "done": False}
    frames = [to_png(Frame(np.full((8, 8, 3), v, np.uint8))) for v in (0, 255)]
    gif = Image.open(io.BytesIO(episode_gif(frames)))
    assert gif.format == "GIF" and gif.n_frames == 2 and gif.size == (480, 480)
    assert episode_gif([]) is None


GRID_PACKAGE = package_of(GridWorldEnvironment)


def test_snippet_uses_the_env_package_or_the_generic_client():
    names = client_names(GRID_PACKAGE, GridWorldAction)
    assert names == ClientNames("grid_world_env", "GridWorldEnv", "GridWorldAction")
    # A server's schema-only refinement of the package's action (same name) is still typed.
    refined = create_model("GridWorldAction", __base__=GridWorldAction)
    assert client_names(GRID_PACKAGE, refined) == names
    other = create_model("Move", __base__=GridWorldAction)
    assert client_names(GRID_PACKAGE, other).action is None
    code = python_snippet(names, "http://h:1/envs/g", {"action": "UP", "metadata": {}}, {"seed": 3})
    assert "from grid_world_env import GridWorldAction, GridWorldEnv" in code
    assert "GridWorldEnv(base_url='http://h:1/envs/g')" in code
    assert "env.reset(seed=3)" in code and "env.step(GridWorldAction(action='UP'))" in code
    generic = python_snippet(ClientNames(None, None, None), "http://h", {"n": 1}, needs_token=True)
    assert "GenericEnvClient" in generic and 'env.step({"n": 1})' in generic
    assert "OPENENV_API_TOKEN" in generic
    compile(code, "snippet", "exec")


@pytest.fixture
def controller():
    app = create_app(GridWorldEnvironment, max_concurrent_envs=1, enable_web=False)
    return Controller(app.state.openenv)


def test_refused_actions_change_nothing_and_a_full_server_says_so(controller):
    run(_refused_actions(controller))


async def _refused_actions(controller):
    tab = controller.new_tab("visitor-1")
    assert await controller.reset(tab, {})
    assert await controller.act(tab, 1)  # DOWN
    before = (list(tab.episode.steps), tab.shows.html)
    assert not await controller.step(tab, {"action": "DIAGONAL"})
    assert tab.notice.text.startswith("Step refused, nothing changed: invalid action")
    assert not await controller.act(tab, 9)
    assert (tab.episode.steps, tab.shows.html) == before
    other = controller.new_tab("visitor-2")
    assert not await controller.reset(other, {})
    assert "server is full" in other.notice.text
    await controller.close(tab)
    assert controller.manager.active == 0
    assert await controller.reset(other, {})
    await controller.close(other)


def test_unknown_reset_options_are_refused(controller):
    run(_unknown_options(controller))


async def _unknown_options(controller):
    tab = controller.new_tab(None)
    assert not await controller.reset(tab, {"difficulty": 3})
    assert "does not accept 'difficulty'" in tab.notice.text
    await controller.close(tab)


class _Visitor:
    """Stands in for gr.Request: the API only reads the visitor's session hash."""

    session_hash = "custom-tab-visitor"


def test_gradio_builder_gets_its_tab_and_the_visitors_session():
    run(_builder_tab())


async def _builder_tab():
    import gradio as gr

    from openenv.web.page.extension import PlaygroundAPI

    seen: list[PlaygroundAPI] = []

    def builder(api: PlaygroundAPI) -> None:
        seen.append(api)
        gr.Textbox(label="custom box")

    app = create_app(GridWorldEnvironment, gradio_builder=builder, custom_tab_name="Tools")
    labels = [
        c.get("props", {}).get("label")
        for c in app.state.openenv.web["blocks"].config["components"]
    ]
    assert "Tools" in labels and "custom box" in labels
    api = seen[0]
    assert api.manifest.name == "grid_world" and api.action_cls is GridWorldAction
    controller = app.state.openenv.web["controller"]
    tab = controller.new_tab(_Visitor.session_hash)
    assert await controller.reset(tab, {})
    payload = await api.step(_Visitor(), {"action": "RIGHT"})
    assert payload["observation"]["y"] == 1
    assert await api.call(_Visitor(), lambda env: env.state.y) == 1
    assert 'data-steps="1"' in await api.stage_html(_Visitor())
    with pytest.raises(gr.Error, match="refused"):
        await api.step(_Visitor(), {"action": "NOWHERE"})
    await controller.close(tab)


def test_an_idle_playground_does_not_poll_gradios_queue_every_millisecond() -> None:
    from openenv.web.playground import PROGRESS_POLL_S, QUEUE_IDLE_POLL_S

    app = create_app(GridWorldEnvironment)
    queue = app.state.openenv.web["blocks"]._queue
    assert (queue.sleep_when_free, queue.progress_update_sleep_when_free) == (
        QUEUE_IDLE_POLL_S,
        PROGRESS_POLL_S,
    )
    assert QUEUE_IDLE_POLL_S >= 0.01  # Gradio's 1 ms is 1,000 wake-ups a second per page


def test_the_step_log_names_a_move_by_its_button_and_leaves_out_unset_fields():
    from openenv.core import ActionChoice
    from openenv.web.episode.export import episode_jsonl
    from openenv.web.episode.files import parse_episode_jsonl
    from openenv.web.episode.steps import label_of
    from openenv.web.rewards.review import _list_row
    from openenv.web.stage.html import episode_panel
    from openenv.web.stage.tabs import WebTab

    legal = [ActionChoice("RIGHT", {"action_id": 2}), ActionChoice("LEFT", {"action_id": 3})]
    unset = {"game_name": None, "obs_type": None, "metadata": {}}
    # A typed action equal to a button (unset fields aside) gets the button's label.
    assert label_of({"action_id": 3, **unset}, legal) == "LEFT"
    assert label_of({"action_id": 7, **unset}, legal) is None
    tab = WebTab(key="t", session_hash=None, authorized=True)
    tab.episode.steps = [
        {"action": {"action_id": 2, **unset}, "label": "RIGHT", "reward": 0.0, "done": False},
        {"action": {"action_id": 7, **unset}, "reward": 1.0, "done": True},
    ]
    for step in tab.episode.steps:
        step["observation"] = {}
    log = episode_panel(tab).split('<div class="oe-log">', 1)[1]
    assert "<td>RIGHT</td>" in log and "<td>7</td>" in log  # a button; else the set field
    assert "null" not in log and "game_name" not in log
    # The Rewards tab's list says the same, and the label survives export and import.
    assert "<td>RIGHT</td>" in _list_row(tab.episode.steps[0], 0, False)
    back = parse_episode_jsonl(episode_jsonl(tab.episode.steps))
    assert back == tab.episode.steps
    assert "label" not in episode_jsonl(tab.episode.steps[1:])


def test_a_tool_call_reads_as_a_call_in_the_step_log_and_a_failed_one_is_marked():
    from openenv.web.episode.steps import action_text, step_error

    call = {"type": "call_tool", "tool_name": "create_event", "arguments": {"summary": "Offsite"}}
    assert action_text({"action": call}) == "create_event(summary='Offsite')"
    failed = {"action": call, "observation": {"error": {"error_type": "invalid_args"}}}
    assert step_error(failed) == "invalid_args" and step_error({"action": call}) is None
    assert step_error({"observation": {"error": "boom"}}) == "boom"
