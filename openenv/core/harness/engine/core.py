"""The test engine's one narrow interface: a chat request in, a ``Generation`` out.

Two modes behind it: ``model`` samples from the tiny LM; ``scripted`` replays a
:class:`~openenv.core.harness.engine.script.ScriptedPolicy` and scores it with the tiny LM, so
ids and logprobs are real in both.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from openenv.core.harness.engine.model import END_ID, TinyLM, TokenStep
from openenv.core.harness.engine.script import ScriptedPolicy, ScriptError
from openenv.core.harness.engine.template import parse_completion, render_prompt
from openenv.core.harness.engine.tokenizer import build_tokenizer

MAX_TOKENS_CAP = 1024
MAX_PROMPT_TOKENS = 3072
# A scripted reply is only scored, so a coding agent's whole prompt is taken (Claude Code's or
# codex's system prompt and tools run to tens of thousands of tokens with this tokenizer); past
# MAX_PROMPT_TOKENS the tiny model scores it on the prompt's last MAX_PROMPT_TOKENS tokens, its
# context window (the ids returned are still the whole prompt's).
MAX_SCRIPTED_PROMPT_TOKENS = 262_144


class EngineError(ValueError):
    """A request the engine refuses (answered as HTTP 400 with this message)."""


class ChatRequest(BaseModel):
    """The fields of an OpenAI chat-completions request that the engine reads."""

    model_config = ConfigDict(extra="allow")

    messages: list[dict[str, Any]] = Field(min_length=1)
    model: str | None = None
    tools: list[dict[str, Any]] | None = None
    max_tokens: int | None = Field(default=None, ge=1)
    max_completion_tokens: int | None = Field(default=None, ge=1)
    temperature: float | None = Field(default=None, ge=0.0, le=4.0)
    seed: int | None = None
    logprobs: bool = False
    top_logprobs: int | None = Field(default=None, ge=0, le=20)
    return_token_ids: bool = False
    stream: bool = False
    stream_options: dict[str, Any] | None = None

    def token_budget(self, default: int = 64) -> int:
        """The completion cap the request asks for (``default`` when it names none), bounded by
        the engine's own."""
        asked = self.max_completion_tokens or self.max_tokens or default
        return min(asked, MAX_TOKENS_CAP)


@dataclass
class Generation:
    """One answered request: ids, per-token steps and the parsed reply."""

    prompt_ids: list[int]
    steps: list[TokenStep]
    content: str | None
    tool_calls: list[dict[str, Any]] = field(default_factory=list)
    finish_reason: str = "stop"

    @property
    def completion_ids(self) -> list[int]:
        """The sampled token ids, in order."""
        return [s.token_id for s in self.steps]


class Engine:
    """The tiny-model engine, in ``model`` or ``scripted`` mode."""

    def __init__(
        self,
        *,
        script: ScriptedPolicy | None = None,
        name: str = "openenv/tiny-test-lm",
        logprobs_mode: Literal["processed", "raw"] = "processed",
        seed: int = 0,
    ) -> None:
        self.tokenizer = build_tokenizer()
        self.lm = TinyLM(seed=seed)
        self.script = script
        self.name = name
        self.raw_logprobs = logprobs_mode == "raw"

    @property
    def mode(self) -> str:
        """``scripted`` (a test policy) or ``model`` (samples from the tiny LM)."""
        return "scripted" if self.script is not None else "model"

    def generate(self, request: ChatRequest) -> Generation:
        """Answer one chat request."""
        prompt = self.tokenizer.encode(render_prompt(request.messages, request.tools)).ids
        limit = MAX_PROMPT_TOKENS if self.script is None else MAX_SCRIPTED_PROMPT_TOKENS
        if len(prompt) > limit:
            raise EngineError(f"prompt is {len(prompt)} tokens; this engine takes at most {limit}")
        temperature = 1.0 if request.temperature is None else request.temperature
        top_k = request.top_logprobs or 0
        # A scripted reply is not sampled: uncapped by the request, it is given whole (a harness
        # that names no max_tokens would otherwise see its tool call cut at 64 tokens).
        budget = request.token_budget(MAX_TOKENS_CAP if self.script is not None else 64)
        if self.script is not None:
            try:
                text = self.script.reply(request.messages).completion_text(request.tools)
            except ScriptError as exc:
                raise EngineError(f"scripted test policy: {exc}") from exc
            ids = [*self.tokenizer.encode(text).ids, END_ID][:budget]
            window = prompt[-MAX_PROMPT_TOKENS:]
            steps = self.lm.score(
                window, ids, temperature=temperature, top_k=top_k, raw=self.raw_logprobs
            )
        else:
            steps = self.lm.sample(
                prompt,
                max_tokens=budget,
                temperature=temperature,
                seed=request.seed,
                top_k=top_k,
                raw=self.raw_logprobs,
            )
        return self._finish(prompt, steps, budget)

    def _finish(self, prompt: list[int], steps: list[TokenStep], budget: int) -> Generation:
        ended = bool(steps) and steps[-1].token_id == END_ID
        body = [s.token_id for s in steps if s.token_id != END_ID]
        content, calls = parse_completion(self.tokenizer.decode(body, skip_special_tokens=False))
        finish = "tool_calls" if calls else ("stop" if ended or len(steps) < budget else "length")
        return Generation(prompt, steps, content, calls, finish)

    def decode(self, ids: list[int]) -> str:
        """The text of ``ids`` (special tokens dropped), as a completion shows it."""
        return self.tokenizer.decode(ids, skip_special_tokens=True)

    def token_text(self, token_id: int) -> str:
        """The text of one token (for logprob entries without ``token_id:`` names)."""
        return self.tokenizer.decode([token_id], skip_special_tokens=False)
