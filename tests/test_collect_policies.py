"""Who picks the actions in ``openenv collect`` (openenv.datasets.policies): a teacher's reply
read as a legal action's number, its label or the action's JSON; actions drawn from a schema
when the server lists no legal actions; the teacher endpoint from flags or the operator's
setting."""

from __future__ import annotations

import random

import pytest
from grid_world_env.models import GridWorldAction

from openenv.cli.collect import teacher_endpoint
from openenv.cli.ui import CliError
from openenv.datasets.policies import (
    Choice,
    PolicyError,
    RandomPolicy,
    ScriptedPolicy,
    Turn,
    parse_reply,
    sample_schema,
)

LEGAL = [Choice("↑ Up", {"action": "UP"}), Choice("↓ Down", {"action": "DOWN"})]


@pytest.mark.parametrize(
    ("reply", "action"),
    [
        ("1", {"action": "DOWN"}),
        ("Action 0: up we go", {"action": "UP"}),
        ("↓ Down", {"action": "DOWN"}),
        ('I will move: {"action": "UP"} now', {"action": "UP"}),
    ],
)
def test_a_teacher_reply_names_a_legal_action(reply: str, action: dict) -> None:
    move = parse_reply(reply, LEGAL)
    assert move.action == action and move.reply == reply
    assert move.label == next(c.label for c in LEGAL if c.action == action)


def test_a_reply_that_names_nothing_fails_the_episode_instead_of_guessing() -> None:
    with pytest.raises(PolicyError, match="names no action"):
        parse_reply("I am not sure what to do.", LEGAL)
    with pytest.raises(PolicyError):
        parse_reply("7", LEGAL)  # no such legal action, and no JSON


def test_actions_are_drawn_from_the_schema_when_no_legal_actions_are_listed() -> None:
    schema = GridWorldAction.model_json_schema()
    drawn = {sample_schema(schema, random.Random(n))["action"] for n in range(40)}
    assert drawn == {"UP", "DOWN", "LEFT", "RIGHT"}
    assert sample_schema(schema, None) == {"action": "UP"}
    free_text = {"properties": {"word": {"type": "string"}}, "required": ["word"]}
    with pytest.raises(PolicyError, match="'word'"):
        sample_schema(free_text, None)
    numbers = {"properties": {"n": {"type": "integer", "minimum": 3, "maximum": 5}}}
    assert {sample_schema(numbers, random.Random(n))["n"] for n in range(30)} == {3, 4, 5}


def test_random_is_seeded_and_scripted_takes_the_first_legal_action() -> None:
    turn = Turn(messages=[], observation={}, legal=LEGAL * 3)
    one, two, other = RandomPolicy(7), RandomPolicy(7), RandomPolicy(8)
    walk = [one.choose(turn).label for _ in range(20)]
    assert walk == [two.choose(turn).label for _ in range(20)]
    assert walk != [other.choose(turn).label for _ in range(20)] and set(walk) == {"↑ Up", "↓ Down"}
    assert {ScriptedPolicy().choose(turn).label for _ in range(5)} == {"↑ Up"}


def test_the_teacher_endpoint_comes_from_the_flags_or_the_operators_setting(monkeypatch) -> None:
    for name in ("OPENENV_LLM_URL", "OPENENV_LLM_MODEL", "OPENENV_LLM_API_KEY", "OPENAI_API_KEY"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.delenv("OPENENV_LLM_TEACHER_URL", raising=False)
    with pytest.raises(CliError, match="OPENENV_LLM_URL"):
        teacher_endpoint(None, None, None)
    with pytest.raises(CliError, match="--model"):
        teacher_endpoint("http://gpu-box", None, None)
    flags = teacher_endpoint("gpu-box", 8000, "qwen")
    assert (flags.base_url, flags.model) == ("http://gpu-box:8000/v1", "qwen")
    assert teacher_endpoint("http://h:9/api/v1/", 8000, "m").base_url == "http://h:9/api/v1"
    monkeypatch.setenv("OPENENV_LLM_URL", "http://judge:1/v1")
    monkeypatch.setenv("OPENENV_LLM_TEACHER_URL", "http://teacher:2/v1")
    monkeypatch.setenv("OPENENV_LLM_MODEL", "big")
    monkeypatch.setenv("OPENENV_LLM_API_KEY", "sk-secret")
    setting = teacher_endpoint(None, None, None)
    assert (setting.base_url, setting.model, setting.api_key) == (
        "http://teacher:2/v1",
        "big",
        "sk-secret",
    )
    assert "sk-secret" not in repr(setting)
    assert teacher_endpoint(None, None, "small").model == "small"
