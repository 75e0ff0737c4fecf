"""Notebooks see pictures: IPython's display formatter turns observations, step results, the
env's view and episodes into images, and ``env.playground()`` is the server's live page of the
notebook's own session (its steps appear there as the notebook takes them)."""

from __future__ import annotations

import io

import httpx
import pytest
from connect4_env.models import Connect4Action
from connect4_env.server.environment import Connect4Environment
from grid_world_env import GridWorldAction, GridWorldEnv
from grid_world_env.server.environment import GridWorldEnvironment
from IPython.core.interactiveshell import InteractiveShell
from PIL import Image

from openenv.server import create_app
from openenv.web.drawing.notebook import episode_bundle
from tests.servers import served


def shown(obj) -> dict:
    """What Jupyter would show of ``obj``: its mime bundle."""
    data, _ = InteractiveShell.instance().display_formatter.format(obj)
    return data


def png_size(data: bytes) -> tuple[int, int]:
    with Image.open(io.BytesIO(data)) as image:
        return image.size


def test_a_board_in_an_observation_shows_as_a_picture_with_its_reward():
    env = Connect4Environment()
    obs = env.reset(seed=0)
    data = shown(obs)
    assert "image/png" in data and png_size(data["image/png"]) == (7 * 48 + 1, 6 * 48 + 1)
    assert "reward" in data["text/html"] and "text/plain" in data


def test_a_frame_in_an_observation_shows_as_that_frame():
    pytest.importorskip("ale_py")
    from atari_env.server.environment import AtariEnvironment

    env = AtariEnvironment()
    try:
        data = shown(env.reset(seed=0))
    finally:
        env.close()
    assert png_size(data["image/png"]) == (160, 210)


def test_an_observation_without_a_picture_keeps_its_text():
    env = GridWorldEnvironment()
    data = shown(env.reset(seed=0))  # x, y and a message: no picture in it
    assert "image/png" not in data and "GridWorldObservation" in data["text/plain"]


def test_an_episode_shows_as_an_animated_gif():
    env = Connect4Environment()
    steps = [{"observation": env.reset(seed=0).model_dump(mode="json")}]
    for column in (3, 3, 4):
        obs = env.step(Connect4Action(column=column))
        steps.append({"observation": obs.model_dump(mode="json")})
    data = episode_bundle(steps)
    with Image.open(io.BytesIO(data["image/gif"])) as gif:
        assert gif.n_frames == 4


@pytest.fixture(scope="module")
def grid_url():
    with served(create_app(GridWorldEnvironment)) as url:
        yield url


def test_the_typed_client_shows_the_envs_own_picture_and_results(grid_url):
    with GridWorldEnv(base_url=grid_url) as env:
        result = env.reset(seed=0)
        assert "text/plain" in shown(result)
        picture = shown(env.show())
        assert png_size(picture["image/png"]) == (5 * 48 + 1, 5 * 48 + 1)  # the board


def test_playground_is_the_live_page_of_the_notebooks_own_session(grid_url):
    with GridWorldEnv(base_url=grid_url) as env:
        env.reset(seed=0)
        frame = env.playground()
        assert frame.src.startswith(f"{grid_url}/web/watch/") and "<iframe" in frame._repr_html_()
        page = httpx.get(frame.src)
        assert page.status_code == 200 and "frame-ancestors" in page.headers[
            "content-security-policy"
        ] and " *" in page.headers["content-security-policy"]  # fmt: skip
        for move in ("DOWN", "RIGHT", "DOWN"):
            env.step(GridWorldAction(action=move))
        view = httpx.get(frame.src + "/view").json()
        assert view["steps"] == 3  # the notebook's steps, on the page it shows
        assert 'title="agent"' in view["html"]
        session = env.session()
        assert frame.src.endswith(session["watch"]) and session["id"] != session["watch"]


def test_views_show_as_pictures():
    from openenv.core.views import Svg, Text

    env = GridWorldEnvironment()
    env.reset(seed=0)
    assert png_size(shown(env.render())["image/png"]) == (5 * 48 + 1, 5 * 48 + 1)
    assert "image/png" in shown(Text("score 3 🏆"))
    svg = shown(Svg('<svg xmlns="http://www.w3.org/2000/svg" width="40" height="20"/>'))
    assert png_size(svg["image/png"]) == (40, 20) and "image/svg+xml" in svg
