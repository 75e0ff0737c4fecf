"""Chat: a tokenised conversation. Each step adds one message, given as token ids.

As the reference ``chat_env``: the environment owns a tokenizer; ``reset`` starts the history
with the system prompt (if any); ``step(ChatAction(tokens))`` decodes the tokens into a message
and appends it; the observation holds every message and the whole conversation's token ids,
flattened, and the state each message's tokens. Tokens that are one message of the chat
template (``message_to_action``'s output) keep their role; any other tokens (a model's raw
generation) become an ``assistant`` message of their decoded text.

Tokenizer: ``ChatEnvironment(tokenizer=...)``, else ``$TOKENIZER_NAME`` through
``AutoTokenizer.from_pretrained``, else the small byte-level BPE shipped in
``chat_env/tokenizer`` (no download). Token ids outside its vocabulary are refused with the
reason (``InvalidAction``) and the conversation is unchanged; so is a message that would take
the conversation past ``CHAT_MAX_HISTORY_TOKENS`` (32768).

Reward: the rubric's (``rubrics.py``: 0.5 for a non-empty assistant message, 0.5 more when it
ends with the end-of-turn token); ``rubric=`` or ``$CHAT_RUBRIC`` replaces it. The episode
ends after ``max_turns`` messages besides the system prompt (reset option, default 100).
"""

from __future__ import annotations

import importlib
import os
import uuid
from typing import Annotated, Any

from pydantic import Field

from chat_env.models import ChatAction, ChatObservation, ChatState
from chat_env.server.bubbles import bubbles
from chat_env.server.rubrics import chat_rubric
from chat_env.tokenizer import decode_message, encode_message, load_tokenizer
from openenv.core import ActionChoice, Environment, InvalidAction, Svg
from openenv.core.rubrics import Rubric
from openenv.core.transforms import Transform

DEFAULT_SYSTEM_PROMPT = "You are a helpful assistant."
MAX_TURNS = 1000
SUGGESTIONS = (  # the playground's quick messages (role, content)
    ("user", "Hello! What is two plus two?"),
    ("assistant", "Two plus two equals four."),
    ("user", "Thank you!"),
)
_UNSET: Any = object()


class ChatEnvironment(Environment[ChatAction, ChatObservation, ChatState]):
    """A conversation over one tokenizer; one instance per session (tokenizers are shared)."""

    how_to_play = (
        "Press a suggested message, or write your own in the Chat tab below: each becomes"
        " the next turn of the conversation."
    )

    def __init__(
        self,
        tokenizer: Any = None,
        system_prompt: str | None = _UNSET,
        system_role: str = "system",
        transform: Transform | None = None,
        rubric: Rubric | None = _UNSET,
    ) -> None:
        self.tokenizer = tokenizer if tokenizer is not None else load_tokenizer()
        if system_prompt is _UNSET:
            system_prompt = os.environ.get("SYSTEM_PROMPT", DEFAULT_SYSTEM_PROMPT)
        self.system_prompt = system_prompt or None
        self.system_role = system_role
        self.transform = transform
        self.rubric = self._default_rubric() if rubric is _UNSET else rubric
        self._vocab = len(self.tokenizer)
        self._max_history = _max_history_tokens()
        self._max_turns = 100
        self._state = ChatState()

    def reset(
        self,
        seed: int | None = None,
        episode_id: str | None = None,
        system_prompt: Annotated[
            str | None,
            Field(max_length=4000, description="the first message (empty: none; unset: default)"),
        ] = None,
        max_turns: Annotated[int, Field(ge=1, le=MAX_TURNS)] = 100,
    ) -> ChatObservation:
        prompt = self.system_prompt if system_prompt is None else system_prompt or None
        self._max_turns = max_turns
        self._state = ChatState(episode_id=episode_id or str(uuid.uuid4()))
        if prompt:
            message = {"role": self.system_role, "content": prompt}
            self._append(message, encode_message(self.tokenizer, message))
        return self._observe(reward=0.0 if self.rubric is not None else None)

    def step(self, action: ChatAction) -> ChatObservation:
        tokens = list(action.tokens)
        self._check(tokens)
        self._append(decode_message(self.tokenizer, tokens), tokens)
        self._state.step_count += 1
        return self._observe(done=self._turns() >= self._max_turns)

    @property
    def state(self) -> ChatState:
        return self._state

    def message_to_action(self, message: dict[str, Any]) -> ChatAction:
        """``{"role", "content"}`` tokenised with this environment's tokenizer."""
        return ChatAction(tokens=encode_message(self.tokenizer, message))

    def render(self) -> Svg:
        s = self._state
        return Svg(bubbles(s.history_messages, [len(t) for t in s.history_tokens]))

    def legal_actions(self) -> list[ActionChoice]:
        """A few ready-made messages, tokenised, for the playground's buttons."""
        return [
            ActionChoice(f"{role}: {text}", {"tokens": self._suggested(role, text)})
            for role, text in SUGGESTIONS
        ]

    # -- internals ------------------------------------------------------------------------

    def _check(self, tokens: list[int]) -> None:
        for i, token in enumerate(tokens):
            if token >= self._vocab:
                raise InvalidAction(
                    f"token id {token} (position {i}) is outside the tokenizer's vocabulary "
                    f"(ids 0 to {self._vocab - 1}); tokenise with the server's tokenizer"
                )
        total = sum(map(len, self._state.history_tokens)) + len(tokens)
        if total > self._max_history:
            raise InvalidAction(
                f"the conversation would hold {total} tokens, over the limit of "
                f"{self._max_history} (CHAT_MAX_HISTORY_TOKENS): reset to start a new one"
            )

    def _append(self, message: dict[str, str], tokens: list[int]) -> None:
        s = self._state
        s.history_messages = [*s.history_messages, message]
        s.history_tokens = [*s.history_tokens, tokens]

    def _turns(self) -> int:
        return sum(m["role"] != self.system_role for m in self._state.history_messages)

    def _observe(self, done: bool = False, reward: float | None = None) -> ChatObservation:
        s = self._state
        return ChatObservation(
            messages=[dict(m) for m in s.history_messages],
            tokens=[t for message in s.history_tokens for t in message],
            done=done,
            reward=reward,
        )

    def _suggested(self, role: str, text: str) -> list[int]:
        cache = self.__dict__.setdefault("_suggestions", {})
        if (role, text) not in cache:
            cache[role, text] = encode_message(self.tokenizer, {"role": role, "content": text})
        return cache[role, text]

    def _default_rubric(self) -> Rubric | None:
        spec = os.environ.get("CHAT_RUBRIC", "").strip()
        if spec.lower() == "none":
            return None
        if spec:
            module, _, name = spec.partition(":")
            return getattr(importlib.import_module(module), name or "rubric")()
        return chat_rubric(*_turn_ids(self.tokenizer))


def _turn_ids(tokenizer: Any) -> tuple[set[int], set[int]]:
    """The end-of-turn token ids (eos) and the ids of blank text a template adds after it."""
    end = {int(t) for t in [tokenizer.eos_token_id] if t is not None}
    blanks = {int(t) for t in tokenizer.encode("\n", add_special_tokens=False)}
    return end, blanks - end


def _max_history_tokens() -> int:
    value = os.environ.get("CHAT_MAX_HISTORY_TOKENS", "32768")
    try:
        return max(1, int(value))
    except ValueError:
        why = f"$CHAT_MAX_HISTORY_TOKENS must be a whole number, got {value!r}"
        raise ValueError(why) from None
