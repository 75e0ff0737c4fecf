"""The tiny causal LM behind the test engine: built from a config with seeded random weights.

``TinyLM.sample`` draws a completion and ``TinyLM.score`` teacher-forces a given one; both return
processed logprobs (``log_softmax(logits / T)``, what vLLM's ``processed_logprobs`` mode reports)
or, when asked, raw ones (``log_softmax(logits)``), with the top-k alternatives at each position.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field

import torch
from transformers import LlamaConfig, LlamaForCausalLM

from openenv.core.harness.engine.tokenizer import VOCAB_SIZE

END_ID = 2  # <|im_end|>


@dataclass
class TokenStep:
    """One generated (or scored) token: its id, logprob and the top alternatives."""

    token_id: int
    logprob: float
    top: list[tuple[int, float]] = field(default_factory=list)


def _config() -> LlamaConfig:
    return LlamaConfig(
        vocab_size=VOCAB_SIZE,
        hidden_size=32,
        intermediate_size=64,
        num_hidden_layers=2,
        num_attention_heads=4,
        num_key_value_heads=2,
        max_position_embeddings=4096,
        bos_token_id=1,
        eos_token_id=END_ID,
        pad_token_id=0,
    )


def _cache_of(out: object) -> dict[str, object]:
    """The KV cache of a forward pass, under the keyword this transformers version takes."""
    cache = getattr(out, "cache", None)
    if cache is not None:  # transformers >= 5.20
        return {"cache": cache}
    return {"past_key_values": getattr(out, "past_key_values", None)}


class TinyLM:
    """A 2-layer Llama with random weights fixed by ``seed``; thread-safe (one call at a time)."""

    def __init__(self, seed: int = 0) -> None:
        torch.manual_seed(seed)
        self.model = LlamaForCausalLM(_config()).eval()
        # Random init gives near-uniform outputs; sharpen them so sampling has a real shape.
        with torch.no_grad():
            self.model.lm_head.weight.mul_(40.0)
        self._lock = threading.Lock()

    def _logprobs(self, logits: torch.Tensor, temperature: float, raw: bool) -> torch.Tensor:
        scale = 1.0 if raw or temperature <= 0 else temperature
        return torch.log_softmax(logits.float() / scale, dim=-1)

    @staticmethod
    def _top(lp: torch.Tensor, k: int) -> list[tuple[int, float]]:
        if k <= 0:
            return []
        values, ids = torch.topk(lp, k)
        return [(int(i), float(v)) for i, v in zip(ids, values, strict=True)]

    @torch.no_grad()
    def sample(
        self,
        prompt: list[int],
        *,
        max_tokens: int,
        temperature: float,
        seed: int | None,
        top_k: int = 0,
        raw: bool = False,
    ) -> list[TokenStep]:
        """Sample up to ``max_tokens`` tokens after ``prompt`` (greedy at temperature 0)."""
        gen = torch.Generator().manual_seed(seed if seed is not None else torch.seed() % 2**31)
        steps: list[TokenStep] = []
        with self._lock:
            out = self.model(torch.tensor([prompt]), use_cache=True)
            for _ in range(max_tokens):
                logits = out.logits[0, -1]
                sample_lp = self._logprobs(logits, temperature, raw=False)
                if temperature <= 0:
                    token = int(torch.argmax(sample_lp))
                else:
                    token = int(torch.multinomial(sample_lp.exp(), 1, generator=gen))
                lp = self._logprobs(logits, temperature, raw)
                steps.append(TokenStep(token, float(lp[token]), self._top(lp, top_k)))
                if token == END_ID:
                    break
                out = self.model(torch.tensor([[token]]), use_cache=True, **_cache_of(out))
        return steps

    @torch.no_grad()
    def score(
        self,
        prompt: list[int],
        completion: list[int],
        *,
        temperature: float,
        top_k: int = 0,
        raw: bool = False,
    ) -> list[TokenStep]:
        """The logprob of each token of ``completion`` after ``prompt`` (teacher forcing)."""
        if not completion:
            return []
        with self._lock:
            logits = self.model(torch.tensor([prompt + completion[:-1]])).logits[0]
        lps = self._logprobs(logits[len(prompt) - 1 :], temperature, raw)
        return [
            TokenStep(tok, float(lp[tok]), self._top(lp, top_k))
            for tok, lp in zip(completion, lps, strict=True)
        ]
