"""BrowserGym's oracle, on MiniWoB's ``enter-text``: it reads the word from the goal, types it
into the text field and presses Submit, as BrowserGym's action language says it
(``fill(bid, text)``, ``click(bid)``), finding both elements in the accessibility tree.

Score: MiniWoB's reward, 1.0 when the task is solved, else 0.0 (the best reward of the
episode). The oracle solves it in two steps. The env's own suggestions are clicks on the
page's elements (the text field, Submit): a random or null policy that only clicks can never
type the word, so it submits an empty field or runs out of its 10 steps (0). Canaries submit
the empty field, type another word, and navigate off the task's pages (refused).
"""

from __future__ import annotations

import re
from typing import Any

from openenv.validation.oracle import Canary, Oracle

TASK = "enter-text"
GOAL = re.compile(r'Enter "(?P<text>[^"]*)" into the text field')
ELEMENT = re.compile(
    r"^\s*\[(?P<bid>[^\]]+)\] (?P<role>textbox|button) '(?P<name>[^']*)'"
    r"(?:,? value='(?P<value>[^']*)')?",
    re.M,
)


class BrowserGymOracle(Oracle):
    score_range = (0.0, 1.0)
    tolerance = 0.0
    floor_margin = 1.0
    reset_options = {"task_name": TASK, "max_steps": 10}
    max_steps = 10
    probe_steps = 10

    def act(self, env: Any, observation: Any) -> dict[str, Any] | None:
        if observation.done:
            return None
        goal = GOAL.search(observation.goal)
        field, submit = _element(observation, "textbox"), _element(observation, "button")
        if goal is None or field is None or submit is None:
            return None  # not the page this oracle knows: say so by stopping
        text = goal["text"]
        if (field["value"] or "") != text:
            return {"action_str": f"fill({field['bid']!r}, {text!r})"}
        return {"action_str": f"click({submit['bid']!r})"}

    def score(self, rewards: Any) -> float:
        return max((float(r) for r in rewards), default=0.0)

    def canaries(self) -> list[Canary]:
        return [
            Canary("empty_submit", "presses Submit with the field empty", _submit),
            Canary("wrong_text", "types another word, then submits", _wrong_text),
            Canary.repeat(
                "navigate_away",
                "leaves the task for another site",
                {"action_str": "goto('https://example.com')"},
            ),
        ]


def _element(observation: Any, role: str) -> dict[str, str] | None:
    for found in ELEMENT.finditer(observation.axtree_txt):
        if found["role"] == role:
            return found.groupdict()
    return None


def _submit(env: Any, observation: Any, step: int) -> dict[str, Any] | None:
    button = _element(observation, "button")
    if observation.done or button is None:
        return None
    return {"action_str": f"click({button['bid']!r})"}


def _wrong_text(env: Any, observation: Any, step: int) -> dict[str, Any] | None:
    field = _element(observation, "textbox")
    if step == 0 and field is not None:
        goal = GOAL.search(observation.goal)
        wrong = (goal["text"] if goal else "") + "x"
        return {"action_str": f"fill({field['bid']!r}, {wrong!r})"}
    return _submit(env, observation, step)


ORACLE = BrowserGymOracle()
