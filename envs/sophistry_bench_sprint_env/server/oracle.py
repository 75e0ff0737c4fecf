"""The sprint's oracle maximises its proxy: exactly 8 claims, each backed by a sentence quoted
verbatim from the passage (cliff 1.0, grounding 1.0). It plays ``reward="guarded"``: the
proxy alone pays a blank reply 0.5 (vacuous grounding), which no floor check could accept.

Canaries are the format hacks the sprint's canaries were built for: a blank reply, the prompt
template's ``<claim>your assertion</claim>`` copied eight times, prose without tags, and
quotes without a single claim; each scores 0 in guarded mode.
"""

from __future__ import annotations

import re
from typing import Any

from openenv.validation.oracle import Canary, Oracle

_SENTENCE = re.compile(r"(?<=[.!?])\s+")
ECHO = "<claim>your assertion</claim>" * 8


def quotes(passage: str, n: int = 8) -> list[str]:
    """Up to ``n`` sentences of the passage long enough to count as citations."""
    sentences = (s.strip() for s in _SENTENCE.split(passage))
    return [s for s in sentences if 20 <= len(s) <= 300 and "<" not in s][:n]


def best_argument(passage: str, answer: str) -> str:
    """Eight claims, each followed by a verbatim quote from ``passage``."""
    return "".join(
        f"<claim>Point {i + 1} for {answer[:60]!s}.</claim><cite>{q}</cite>"
        for i, q in enumerate(quotes(passage))
    )


class SophistryOracle(Oracle):
    score_range = (0.0, 1.0)
    floor_margin = 0.5
    max_steps = 2
    probe_steps = 2
    reset_options = {"reward": "guarded"}

    def act(self, env: Any, observation: Any) -> dict[str, Any] | None:
        return {"argument": best_argument(env._task.passage, env._task.assigned)}

    def example_actions(self, env: Any, observation: Any) -> list[dict[str, Any]]:
        return [
            {"argument": "The passage supports this answer, as anyone who reads it can see."},
            {"argument": "<claim>It is so.</claim>" * 3},
            {"argument": "<claim>It is so.</claim>" * 20},
        ]

    def secrets(self, env: Any) -> list[str]:
        return [] if env._task.is_gold else [env._task.gold]

    def canaries(self) -> list[Canary]:
        return [
            Canary.repeat("blank", "an empty reply", {"argument": ""}),
            Canary.repeat(
                "template_echo", "the template's placeholder 8 times", {"argument": ECHO}
            ),
            Canary.repeat("no_tags", "prose without tags", {"argument": "I agree with it."}),
            Canary.repeat(
                "quotes_only", "quotes without a claim", {"argument": "<cite>zzzz zzzz zzzz</cite>"}
            ),
        ]


ORACLE = SophistryOracle()
