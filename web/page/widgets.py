"""The one form builder: a Gradio component for a :class:`~openenv.web.forms.FieldSpec`, the
same for the action form, the reset options and every tool's arguments.

A few choices are radio buttons (all visible), more a drop-down, an optional one with no default
led by "(none)", which clears it (:attr:`~openenv.web.forms.FieldSpec.clearable`); a yes/no a
checkbox; a number
with a default a number box, one without a text box that stays blank (blank: left out, so an
optional number keeps the environment's default and a required one is asked for); text a text
box (several lines for ``format: textarea``), or an open drop-down of the values the schema
suggests; anything else JSON in a text box that starts from a value of the right shape.
"""

from __future__ import annotations

import json
from typing import Any

import gradio as gr

from openenv.web.forms import FieldSpec, initial_value

MAX_RADIO_CHOICES = 8
JSON_PLACEHOLDER = {"array": "[1, 2, 3]", "object": '{"key": "value"}'}


def widget(spec: FieldSpec, elem_id: str) -> gr.components.Component:
    """The component that edits ``spec`` (read back with :func:`openenv.web.forms.parse_values`)."""
    common: dict[str, Any] = {
        "label": spec.label,
        "info": spec.hint() or None,
        "value": initial_value(spec),
        "elem_id": elem_id,
    }
    if spec.kind == "enum":
        choices = spec.offered()
        if len(choices) <= MAX_RADIO_CHOICES:
            return gr.Radio(choices=choices, **common)
        return gr.Dropdown(choices=choices, **common)
    if spec.kind == "bool":
        return gr.Checkbox(**common)
    if spec.kind in ("int", "number"):
        if spec.default is None:
            hint = "a whole number" if spec.kind == "int" else "a number"
            return gr.Textbox(placeholder=hint, **common)
        return gr.Number(precision=0 if spec.kind == "int" else None, **common)
    if spec.kind == "string" and spec.suggestions:
        # Known values to pick from (type to filter), and any other value may be typed.
        return gr.Dropdown(choices=spec.offered(), allow_custom_value=True, **common)
    if spec.kind == "string":
        return gr.Textbox(lines=4 if spec.multiline else 1, **common)
    example = json.dumps(spec.example) if spec.example is not None else None
    if spec.required and not common["value"] and example is not None:
        common["value"] = example
    placeholder = example or JSON_PLACEHOLDER.get(spec.json_type or "", "JSON value")
    return gr.Textbox(lines=3, placeholder=placeholder, **common)
