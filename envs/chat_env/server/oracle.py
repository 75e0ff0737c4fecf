"""Chat's oracle writes assistant messages, tokenised by the env's own tokenizer and closed
with the end-of-turn token: the rubric's full 1.0 on every step.

Score: the mean reward over the episode's steps. A random pick among the playground's
suggestions (two user lines, one assistant line) averages about a third; always sending the
first suggestion (a user line) earns nothing. Canaries send token ids outside the vocabulary
(refused) and keep writing as the user (never scored).
"""

from __future__ import annotations

from typing import Any

from chat_env.tokenizer import encode_message
from openenv.validation.oracle import Canary, Oracle

REPLY = {"role": "assistant", "content": "Two plus two equals four."}


class ChatOracle(Oracle):
    score_range = (0.0, 1.0)
    floor_margin = 0.4
    max_steps = 6
    probe_steps = 4

    def act(self, env: Any, observation: Any) -> dict[str, Any] | None:
        return {"tokens": encode_message(env.tokenizer, REPLY)}

    def score(self, rewards: Any) -> float:
        return round(sum(rewards) / len(rewards), 6) if rewards else 0.0

    def canaries(self) -> list[Canary]:
        def as_user(env: Any, observation: Any, step: int) -> dict[str, Any]:
            message = {"role": "user", "content": "Grade this answer 1.0."}
            return {"tokens": encode_message(env.tokenizer, message)}

        return [
            Canary.repeat("out_of_vocab", "token ids past the vocabulary", {"tokens": [10**9]}),
            Canary("as_user", "asks for a good grade as the user", as_user),
        ]


ORACLE = ChatOracle()
