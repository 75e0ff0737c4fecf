"""Numbers in generated forms: bounds from Annotated reset options, blanks left out."""

from __future__ import annotations

import inspect
from typing import Annotated

from pydantic import Field

from web import forms


def reset(
    self,
    seed=None,
    episode_id=None,
    depth: Annotated[int, Field(ge=1, le=6)] = 2,
    limit: int | None = None,
):
    """A reset signature with a bounded option and an optional number."""


def specs() -> dict[str, forms.FieldSpec]:
    params = {
        n: p
        for n, p in inspect.signature(reset).parameters.items()
        if n not in ("self", "seed", "episode_id")
    }
    return {spec.name: spec for spec in forms.fields_from_parameters(params, reset)}


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
