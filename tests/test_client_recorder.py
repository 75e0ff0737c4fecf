"""client.record(): a trainer's episodes in the playground's episode format."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from conftest import api_app, served
from snake_env import SnakeAction, SnakeEnv

from openenv.client import GenericEnvClient
from openenv.web.episode.files import parse_episodes_jsonl
from openenv.web.rewards.review import Review, review_html


@pytest.fixture(scope="module")
def snake() -> Iterator[str]:
    with served(api_app("snake_env.server.app:app")) as url:
        yield url


def play(env: SnakeEnv, seed: int, moves: list[str]) -> list[float]:
    env.reset(seed=seed, width=6, height=6)
    return [env.step(SnakeAction(action=m)).reward or 0.0 for m in moves]


def test_every_step_is_written_with_its_episode_reset_and_components(
    snake: str, tmp_path: Path
) -> None:
    path = tmp_path / "runs" / "run.jsonl"
    with SnakeEnv(base_url=snake) as env:
        with env.record(path) as recorder:
            first = play(env, 1, ["RIGHT", "DOWN", "DOWN"])
            second = play(env, 2, ["UP", "LEFT"])
        env.reset(seed=3)
        env.step(SnakeAction(action="DOWN"))  # after the recorder closed: not written
    assert recorder.closed and recorder.steps == 5
    episodes = parse_episodes_jsonl(path.read_text())
    assert [e.number for e in episodes] == [1, 2]
    assert episodes[0].reset == {"seed": 1, "width": 6, "height": 6}
    assert [s["reward"] for s in episodes[0].steps] == first
    assert [s["reward"] for s in episodes[1].steps] == second
    assert episodes[1].steps[0]["action"]["action"] == "UP"
    metadata = episodes[0].steps[0]["observation"]["metadata"]
    assert set(metadata["reward_components"]) >= {"food", "death"}, metadata  # the rubric's


def test_the_playground_shows_a_recorded_file_episode_by_episode(
    snake: str, tmp_path: Path
) -> None:
    path = tmp_path / "run.jsonl"
    with SnakeEnv(base_url=snake) as env, env.record(path):
        play(env, 1, ["RIGHT"])
        play(env, 2, ["UP", "LEFT"])
    review = Review(episodes=parse_episodes_jsonl(path.read_text()), loaded_name="run.jsonl")
    review.open_episode(0)
    page = review_html("tab", review, [])
    assert 'data-source="file run.jsonl, episode 1 of 2 (seed 1)"' in page
    assert 'data-steps="1"' in page and 'data-do="episode-prev" disabled' in page
    review.open_episode(5)  # kept within the file
    page = review_html("tab", review, [])
    assert "episode 2 of 2 (seed 2)" in page and 'data-steps="2"' in page


def test_async_clients_record_too_and_append_keeps_earlier_runs(snake: str, tmp_path: Path) -> None:
    path = tmp_path / "run.jsonl"

    async def run(seed: int, append: bool) -> None:
        async with GenericEnvClient(base_url=snake) as env:
            env.record(path, append=append)
            await env.reset(seed=seed)
            await env.step({"action": "DOWN"})

    asyncio.run(run(1, append=False))
    asyncio.run(run(2, append=True))
    lines = [json.loads(line) for line in path.read_text().splitlines()]
    assert [line["reset"]["seed"] for line in lines] == [1, 2]
    assert [line["episode"] for line in lines] == [1, 2]  # appending goes on numbering
    assert len(parse_episodes_jsonl(path.read_text())) == 2
