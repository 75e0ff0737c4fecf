"""Reset options in generated forms: bounds from Annotated numbers, blanks left out, and the
known values of a string offered (its schema's examples)."""

from __future__ import annotations

from typing import Annotated

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
