"""Pelican SVG over the wire: a reference drawing scores, cheats fail the gate, the judge layer
says "not judged" without a model and scores with one, and a seed replays its task."""

from __future__ import annotations

import pytest
from fastapi import FastAPI
from pelican_svg_env import PelicanSvgAction, PelicanSvgEnv
from pelican_svg_env.server.drawing import reference_svg
from pelican_svg_env.server.oracle import EXAMPLES, PNG
from pelican_svg_env.server.tasks import TASKS, task_by_id

from openenv.core import ClientError
from openenv.testing import check_task_source
from tests.servers import env_fixtures, served

url, env = env_fixtures("pelican_svg_env.server.app:app", PelicanSvgEnv)
SVG = '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 400 300">{}</svg>'


def draw(env, svg: str):
    return env.step(PelicanSvgAction(svg=svg))


def test_thirty_tasks_of_five_animals_on_six_vehicles():
    assert len(TASKS) == 30 and len({t.task_id for t in TASKS}) == 30
    assert task_by_id("pelican-bicycle").prompt == "a pelican riding a bicycle"


def test_a_reference_drawing_passes_gate_and_geometry_and_is_not_judged_without_a_model(
    env, monkeypatch
):
    monkeypatch.delenv("OPENENV_LLM_URL", raising=False)
    monkeypatch.delenv("OPENENV_LLM_JUDGE_URL", raising=False)
    first = env.reset(seed=0, task="pelican-bicycle").observation
    assert first.prompt == "a pelican riding a bicycle" and not first.submitted
    result = draw(env, reference_svg(task_by_id("pelican-bicycle")))
    obs = result.observation
    assert result.done and result.reward == pytest.approx(1.0)
    assert obs.gate == {} and all(c["passed"] for c in obs.geometry)
    assert {c["name"] for c in obs.geometry} >= {"wheels", "rider_above", "colours"}
    assert obs.judge["score"] is None and "not judged" in obs.judge["reason"]
    assert "OPENENV_LLM_URL" in obs.judge["reason"]
    assert obs.metadata["reward_weights"] == {"geometry": 1.0, "judge": 0.0}


@pytest.mark.parametrize(
    ("body", "kind"),
    [
        (f'<image href="{PNG}" width="400" height="300"/>', "raster"),
        ('<rect width="9" height="9" style="fill:url(data:image/png;base64,AAAA)"/>', "raster"),
        ("<text x='9' y='50'>a pelican riding a bicycle</text>", "text"),
        ('<use href="https://example.com/p.svg#bird"/>', "external"),
        ("<script>alert(1)</script>", "script"),
        ('<circle r="9" onload="alert(1)"/>', "script"),
        ("<foreignObject><div>hi</div></foreignObject>", "script"),
    ],
)
def test_a_cheat_fails_the_gate_with_reward_zero(env, body, kind):
    env.reset(seed=0, task="fox-scooter")
    ref = reference_svg(task_by_id("fox-scooter"))
    result = draw(env, ref.replace("</svg>", body + "</svg>"))  # a good drawing plus the cheat
    assert result.done and result.reward == 0.0
    assert kind in result.observation.gate
    assert result.observation.geometry == []
    assert "Gate failed" in result.observation.message


@pytest.mark.parametrize(
    ("svg", "reason"),
    [
        ("<svg><rect", "not well-formed"),
        ("<html><body/></html>", "not <svg>"),
        ('<!DOCTYPE svg [<!ENTITY a "aaaa">]><svg>&a;</svg>', "DOCTYPE"),
        ("<svg>" + "<g>" * 60 + "</g>" * 60 + "</svg>", "nested"),
        (SVG.format("<g/>" * 5001), "more than 5000 elements"),
    ],
)
def test_a_document_that_is_no_bounded_svg_ends_with_the_reason(env, svg, reason):
    env.reset(seed=0)
    result = draw(env, svg)
    assert result.done and result.reward == 0.0 and reason in result.observation.message
    assert env.reset(seed=0).observation.submitted is False  # the session goes on


def test_an_oversized_document_is_refused_before_it_reaches_the_env(env):
    env.reset(seed=0)
    with pytest.raises(ClientError) as refused:
        env.step(PelicanSvgAction.model_construct(svg=SVG.format("<g/>" * 30_000)))
    assert refused.value.server_code == "VALIDATION_ERROR"


def test_weak_drawings_score_below_the_reference(env):
    scores = []
    for svg in EXAMPLES:
        env.reset(seed=0, task="penguin-tricycle")
        scores.append(draw(env, svg).reward)
    assert max(scores) <= 0.5
    env.reset(seed=0, task="penguin-tricycle")
    obs = draw(env, EXAMPLES[1]).observation
    wheels = next(c for c in obs.geometry if c["name"] == "wheels")
    assert not wheels["passed"] and wheels["detail"] == "1 of the tricycle's 3"


def test_the_stand_in_judge_scores_the_picture_and_names_itself(env):
    env.reset(seed=0, task="flamingo-unicycle", judge="stand-in")
    obs = draw(env, reference_svg(task_by_id("flamingo-unicycle"))).observation
    assert obs.judge["score"] == pytest.approx(1.0)
    assert "stand-in" in obs.judge["judge"] and "not a vision model" in obs.judge["judge"]
    assert obs.metadata["reward_weights"] == {"geometry": 0.5, "judge": 0.5}


@pytest.fixture(scope="module")
def vision_model():
    """A local OpenAI-compatible endpoint standing in for a vision model: scores 7/10."""
    seen: list[dict] = []
    app = FastAPI()

    @app.post("/v1/chat/completions")
    def complete(body: dict) -> dict:
        seen.append(body)
        content = '{"score": 7, "reason": "a bird on two wheels"}'
        return {"choices": [{"message": {"role": "assistant", "content": content}}]}

    with served(app) as base:
        yield base + "/v1", seen


def test_the_judge_endpoint_sees_the_rendered_png_and_its_score_counts(
    env, vision_model, monkeypatch
):
    base, seen = vision_model
    monkeypatch.setenv("OPENENV_LLM_JUDGE_URL", base)
    env.reset(seed=0, task="pelican-bicycle")
    result = draw(env, reference_svg(task_by_id("pelican-bicycle")))
    assert result.observation.judge["score"] == pytest.approx(0.7)
    assert result.observation.judge["reason"] == "a bird on two wheels"
    assert result.reward == pytest.approx(0.5 * 1.0 + 0.5 * 0.7)
    image = seen[-1]["messages"][0]["content"][1]["image_url"]["url"]
    assert image.startswith("data:image/png;base64,")
    assert "a pelican riding a bicycle" in seen[-1]["messages"][0]["content"][0]["text"]


def test_an_unreachable_judge_is_reported_not_scored(env, monkeypatch):
    monkeypatch.setenv("OPENENV_LLM_JUDGE_URL", "http://127.0.0.1:9/v1")
    env.reset(seed=0, task="pelican-bicycle")
    result = draw(env, reference_svg(task_by_id("pelican-bicycle")))
    assert result.observation.judge["score"] is None
    assert "the judge failed" in result.observation.judge["reason"]
    assert result.reward == pytest.approx(1.0)  # the geometry layer alone, as reported


def test_the_same_seed_gives_the_same_task_and_rewards(env):
    def play(seed: int) -> tuple[str, float]:
        task = env.reset(seed=seed).observation.task_id
        return task, draw(env, reference_svg(task_by_id(task))).reward

    assert play(5) == play(5)
    assert len({play(seed)[0] for seed in range(8)}) > 1


def test_an_unknown_task_is_refused_with_the_known_ones(env):
    with pytest.raises(ClientError, match="pelican-bicycle"):
        env.reset(seed=0, task="cat-rocket")


# -- tasks from rows of a task file (task_source / task_index) ------------------------------


def test_a_row_of_the_shipped_task_file_plays_the_task_it_names(env):
    first = env.reset(seed=0, judge="off", task_source="starter.jsonl", task_index=3).observation
    assert (first.task_id, first.prompt) == ("fox-scooter", task_by_id("fox-scooter").prompt)
    state = env.state()
    assert (state.task_id, state.task_source, state.task_index) == (
        "fox-scooter",
        "starter.jsonl",
        3,
    )
    result = draw(env, reference_svg(task_by_id("fox-scooter")))  # our checks score it
    assert result.done and result.reward == pytest.approx(1.0)


BAD_ROWS = [  # each refused naming the row, with these words
    ({"task": "cat-rocket"}, r"row 0 of bad.jsonl: unknown task 'cat-rocket'; known: pel"),
    ({"task": ["fox-scooter"]}, r"row 0 of bad.jsonl: Input should be a valid string"),
    ({"task": "t" * 65}, r"row 0 of bad.jsonl: String should have at most 64"),
    ({"prompt": "a cat riding a rocket", "svg": "<svg/>"}, r"has no column for 'task'"),
]


def test_the_shipped_task_file_keeps_the_task_source_contract():
    from pelican_svg_env.server.environment import TASK_ROWS, PelicanSvgEnvironment, row_task

    check_task_source(
        PelicanSvgEnvironment,
        TASK_ROWS,
        rows=6,
        gives="task",
        replaced={"task": "fox-scooter"},
        read=row_task,
        bad_rows=BAD_ROWS,
    )
