"""Recorded steps in words: which fields of an action say something, and a step's move in a
few words (the step log, the reward debugger, the button a typed action equals)."""

from __future__ import annotations

import json
from typing import Any


def set_fields(action: dict[str, Any]) -> dict[str, Any]:
    """The fields that say something about a move: unset ones (None) and empty metadata out."""
    return {k: v for k, v in action.items() if v is not None and not (k == "metadata" and not v)}


def action_text(step: dict[str, Any], limit: int = 60) -> str:
    """A step's move in a few words: the label of the button pressed, else the action's set
    fields (a single field: its value), cut to ``limit`` characters."""
    label = step.get("label")
    if isinstance(label, str) and label:
        text = label
    else:
        shown = set_fields(step.get("action") or {})
        if len(shown) == 1:
            text = str(next(iter(shown.values())))
        else:
            text = json.dumps(shown, ensure_ascii=False)
    return text if len(text) <= limit else text[: limit - 1] + "…"
