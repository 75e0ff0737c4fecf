"""Reset options in generated forms: bounds from Annotated numbers, blanks left out, the
known values of a string offered (its schema's examples), and an optional choice (a task
picker) cleared back to none."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field

from openenv.core import Environment
from openenv.web import forms


class Options(Environment):
    def reset(
        self,
        seed=None,
        episode_id=None,
        depth: Annotated[int, Field(ge=1, le=6)] = 2,
        limit: int | None = None,
        game: Annotated[str, Field(examples=["pong", "breakout"])] | None = None,
        task_source: Literal["easy.jsonl", "hard.jsonl"] | None = None,
        level: Literal["low", "high"] = "low",
    ):
        """A bounded option, an optional number and a string with examples."""


def specs() -> dict[str, forms.FieldSpec]:
    return {spec.name: spec for spec in forms.reset_fields(Options)}


def test_bounds_of_an_annotated_reset_option_reach_the_form() -> None:
    depth = specs()["depth"]
    assert (depth.minimum, depth.maximum, depth.default) == (1, 6, 2)
    data, errors = forms.parse_values([depth], ["9"])
    assert data == {} and errors == ["depth: must be ≤ 6, got 9"]


def test_a_blank_optional_number_is_left_out_not_sent_as_zero() -> None:
    limit = specs()["limit"]
    assert forms.initial_value(limit) is None
    assert forms.parse_values([limit], [""]) == ({}, [])
    assert forms.parse_values([limit], ["7"]) == ({"limit": 7}, [])


def test_a_strings_examples_are_offered_and_other_values_still_accepted() -> None:
    game = specs()["game"]
    assert (game.kind, game.suggestions, game.required) == ("string", ("pong", "breakout"), False)
    assert forms.parse_values([game], ["breakout"]) == ({"game": "breakout"}, [])
    assert forms.parse_values([game], ["tetris"]) == ({"game": "tetris"}, [])  # the env decides
    assert forms.parse_values([game], [None]) == ({}, [])  # nothing picked: left out
    assert specs()["limit"].suggestions == ()


def test_an_optional_choice_without_default_can_be_cleared_back_to_none() -> None:
    source = specs()["task_source"]
    assert source.clearable and source.offered() == [forms.NONE_CHOICE, "easy.jsonl", "hard.jsonl"]
    assert forms.initial_value(source) == forms.NONE_CHOICE
    assert forms.parse_values([source], ["hard.jsonl"]) == ({"task_source": "hard.jsonl"}, [])
    assert forms.parse_values([source], [forms.NONE_CHOICE]) == ({}, [])  # cleared: left out
    assert forms.parse_values([source], ["other.jsonl"])[1] == [
        "task_source: 'other.jsonl' is not one of easy.jsonl, hard.jsonl"
    ]
    game = specs()["game"]  # suggestions of a free string: "(none)" leads them too
    assert game.offered() == [forms.NONE_CHOICE, "pong", "breakout"]
    assert forms.initial_value(game) is None  # blank: what is typed filters the suggestions
    assert forms.parse_values([game], [forms.NONE_CHOICE]) == ({}, [])


def test_a_choice_with_a_default_or_a_required_one_offers_no_none() -> None:
    level = specs()["level"]
    assert not level.clearable and level.offered() == ["low", "high"]
    assert forms.initial_value(level) == "low"
    required = forms.FieldSpec("side", "enum", required=True, choices=("a", "b"))
    assert not required.clearable and forms.parse_values([required], [forms.NONE_CHOICE])[1]


def test_the_one_form_builder_draws_the_none_choice_first_and_picked() -> None:
    from openenv.web.page.widgets import widget

    radio = widget(specs()["task_source"], "oe-opt-task_source")
    assert [c[1] for c in radio.choices] == [forms.NONE_CHOICE, "easy.jsonl", "hard.jsonl"]
    assert radio.value == forms.NONE_CHOICE
    assert [c[1] for c in widget(specs()["level"], "oe-opt-level").choices] == ["low", "high"]
