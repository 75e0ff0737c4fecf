"""Episodes as links and replays: a shared link's token round-trips and is refused clearly
when damaged or too big; the stage replays it into the same state in another tab; the Rewards
panel's scrubber steps through a record and "play from here" hands the episode over."""

from __future__ import annotations

import base64
import json
import zlib
from collections.abc import Iterator

import pytest
from fastapi.testclient import TestClient
from grid_world_env.server.environment import GridWorldEnvironment

from openenv.server import create_app
from openenv.web.episode.export import episode_jsonl
from openenv.web.episode.share import (
    MAX_ACTIONS,
    MAX_JSON_BYTES,
    ShareError,
    episode_token,
    read_token,
)
from openenv.web.rewards.panel import RewardPanel

MOVES = [1, 3, 3, 1]  # button indexes of grid world: Down, Right, Right, Down


@pytest.fixture(scope="module")
def grid() -> Iterator[TestClient]:
    with TestClient(create_app(GridWorldEnvironment)) as client:
        yield client


def controller(client: TestClient):
    return client.app.state.openenv.web["controller"]


def open_tab(client: TestClient) -> str:
    answer = client.post("/web/stage/open", json={}).json()
    assert answer["ok"]
    return answer["tab"]


def played(client: TestClient, moves=MOVES) -> str:
    tab = open_tab(client)
    for index in moves:
        assert client.post("/web/stage/act", json={"tab": tab, "index": index}).json()["ok"]
    return tab


def episode(client: TestClient, tab: str):
    return controller(client).tabs.by_key(tab).episode


def test_a_token_round_trips_reset_options_and_actions():
    reset, actions = {"seed": 7, "size": 5}, [{"action": "DOWN", "metadata": {}}, {"a": [1, 2]}]
    token = episode_token(reset, actions)
    assert set(token) <= set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_")
    assert read_token(token) == (reset, [{"action": "DOWN"}, {"a": [1, 2]}])  # unset fields out


def pack(body) -> str:
    raw = json.dumps(body).encode()
    return base64.urlsafe_b64encode(zlib.compress(raw)).decode().rstrip("=")


@pytest.mark.parametrize(
    ("token", "reason"),
    [
        ("", "carries no episode"),
        (None, "carries no episode"),
        ("x" * 70_000, "longer than"),
        ("!!!!", "damaged"),
        (episode_token({"seed": 1}, [])[:-6], "damaged"),
        (pack([1, 2]), "not in a format"),
        (pack({"v": 2, "reset": {}, "actions": []}), "not in a format"),
        (pack({"v": 1, "reset": [], "actions": []}), "reset options must be an object"),
        (pack({"v": 1, "reset": {}, "actions": [1]}), "actions must be a list of objects"),
        (pack({"v": 1, "reset": {}, "actions": [{}] * (MAX_ACTIONS + 1)}), "at most"),
        (pack({"v": 1, "pad": " " * (MAX_JSON_BYTES + 10)}), "inflates past"),  # a zip bomb
    ],
)
def test_a_damaged_or_oversized_token_is_refused_with_the_reason(token, reason):
    with pytest.raises(ShareError, match=reason):
        read_token(token)


def test_every_episode_knows_its_seed_given_or_drawn(grid):
    tab = played(grid, [1])
    drawn = episode(grid, tab)
    assert drawn.reset_kwargs == {} and isinstance(drawn.seed, int)
    assert drawn.replayable_reset == {"seed": drawn.seed}


def test_a_shared_link_replays_the_same_episode_in_another_tab(grid):
    tab = played(grid)
    export = controller(grid).tabs.by_key(tab).export_key
    share = grid.get(f"/web/export/{export}/share").json()
    assert share["fits"] and share["steps"] == len(MOVES)
    other = open_tab(grid)
    answer = grid.post("/web/stage/replay", json={"tab": other, "episode": share["token"]}).json()
    assert answer["ok"] and f'data-steps="{len(MOVES)}"' in answer["html"]
    assert "Replayed 4 steps: your turn." in answer["html"]
    mine, theirs = episode(grid, tab), episode(grid, other)
    assert theirs.observation == mine.observation and theirs.seed == mine.seed
    assert [s["label"] for s in theirs.steps] == ["↓ Down", "→ Right", "→ Right", "↓ Down"]
    # and the visitor plays on from there
    assert grid.post("/web/stage/act", json={"tab": other, "index": 1}).json()["ok"]


def test_a_bad_link_is_refused_and_the_tab_plays_on(grid):
    tab = played(grid, [1])
    answer = grid.post("/web/stage/replay", json={"tab": tab, "episode": "!!"}).json()
    assert not answer["ok"] and "This link's episode cannot be replayed: " in answer["error"]
    assert grid.post("/web/stage/act", json={"tab": tab, "index": 1}).json()["ok"]
    refused = episode_token({"seed": 3}, [{"action": "DOWN"}, {"action": "JUMP"}])
    answer = grid.post("/web/stage/replay", json={"tab": tab, "episode": refused}).json()
    assert not answer["ok"] and answer["error"].startswith("The replay stopped at step 2: ")
    bad_option = episode_token({"seed": 3, "colour": "red"}, [])
    answer = grid.post("/web/stage/replay", json={"tab": tab, "episode": bad_option}).json()
    assert not answer["ok"] and "colour" in answer["error"]


def test_the_share_route_is_read_only_and_knows_unknown_tabs(grid):
    assert grid.get("/web/export/nope/share").status_code == 404
    tab = played(grid, [1])
    key = controller(grid).tabs.by_key(tab).export_key
    before = len(episode(grid, tab).steps)
    grid.get(f"/web/export/{key}/share")
    assert len(episode(grid, tab).steps) == before


async def test_play_from_here_replays_a_file_up_to_the_picked_step(grid):
    source = played(grid)
    steps = episode(grid, source).steps
    seed = episode(grid, source).seed
    lines = episode_jsonl(steps).splitlines()
    first = {**json.loads(lines[0]), "episode": 1, "reset": {"seed": seed}}
    text = "\n".join([json.dumps(first), *[line[:-1] + ', "episode": 1}' for line in lines[1:]]])
    panel = RewardPanel(controller(grid))
    tab = controller(grid).tabs.by_key(open_tab(grid))
    panel.load(tab, text, "run.jsonl")
    assert panel.review(tab).error == ""
    panel.command(tab, "pick", {"step": 3})
    panel.command(tab, "prev", {})
    assert panel.review(tab).selected == 2
    html = panel.html(tab)
    assert 'class="oe-rv-scrub" min="0" max="3" value="2"' in html and "step 3 of 4" in html
    await panel.play_from(tab)
    assert panel.review(tab).error == "" and panel.review(tab).loaded is None  # live again
    assert [s["label"] for s in tab.episode.steps] == ["↓ Down", "→ Right", "→ Right"]
    assert tab.episode.observation == steps[2]["observation"]


async def test_play_from_here_needs_a_seed(grid):
    panel = RewardPanel(controller(grid))
    tab = controller(grid).tabs.by_key(open_tab(grid))
    panel.load(
        tab, '{"action": {"action": "DOWN"}, "observation": {}, "reward": 0, "done": false}', "x"
    )
    await panel.play_from(tab)
    assert "has no seed" in panel.review(tab).error
