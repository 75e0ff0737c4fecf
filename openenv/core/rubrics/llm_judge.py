"""LLMJudge: a rubric that asks an OpenAI-compatible chat endpoint for a score."""

from __future__ import annotations

import os
import re
from typing import Any

import httpx

from openenv.core.rubrics.base import Rubric

DEFAULT_PATTERN = r"(-?\d+(?:\.\d+)?)"


class LLMJudge(Rubric):
    """Scores ``prompt_template.format(action=..., observation=...)`` with an LLM.

    ``base_url`` is an OpenAI-compatible API root (``.../v1``); the request is
    ``POST {base_url}/chat/completions``. ``api_key`` defaults to ``$OPENAI_API_KEY``. The first
    number in the reply (or ``score_pattern``'s first group) is the score, clamped to [0, 1]
    when ``normalize``; a reply without a number, or a failed call, scores ``default_score``
    and the reason is kept in ``last_error``.
    """

    def __init__(
        self,
        prompt_template: str,
        *,
        base_url: str,
        model: str,
        api_key: str | None = None,
        score_pattern: str = DEFAULT_PATTERN,
        default_score: float = 0.0,
        normalize: bool = True,
        timeout_s: float = 30.0,
        system_prompt: str = "You are a strict grader. Answer with a single number.",
    ) -> None:
        super().__init__()
        self.prompt_template = prompt_template
        self.base_url = base_url.rstrip("/")
        self.model = model
        self.score_pattern = score_pattern
        self.default_score = default_score
        self.normalize = normalize
        self.timeout_s = timeout_s
        self.system_prompt = system_prompt
        self._api_key = api_key if api_key is not None else os.environ.get("OPENAI_API_KEY")
        self.last_error: str | None = None

    async def forward(self, action: Any, observation: Any) -> float:
        prompt = self.prompt_template.format(action=action, observation=observation)
        try:
            reply = await self._complete(prompt)
        except (httpx.HTTPError, KeyError, IndexError, ValueError) as exc:
            self.last_error = f"judge call failed: {type(exc).__name__}: {exc}"
            return self.default_score
        return self.parse_score(reply)

    async def _complete(self, prompt: str) -> str:
        headers = {"Authorization": f"Bearer {self._api_key}"} if self._api_key else {}
        body = {
            "model": self.model,
            "temperature": 0,
            "messages": [
                {"role": "system", "content": self.system_prompt},
                {"role": "user", "content": prompt},
            ],
        }
        async with httpx.AsyncClient(timeout=self.timeout_s) as client:
            url = f"{self.base_url}/chat/completions"
            response = await client.post(url, json=body, headers=headers)
            response.raise_for_status()
            return str(response.json()["choices"][0]["message"]["content"])

    def parse_score(self, reply: str) -> float:
        match = re.search(self.score_pattern, reply)
        if match is None:
            self.last_error = f"no score in the judge's reply: {reply[:200]!r}"
            return self.default_score
        self.last_error = None
        score = float(match.group(1) if match.lastindex else match.group(0))
        return min(1.0, max(0.0, score)) if self.normalize else score

    def config(self) -> dict[str, Any]:
        return {
            "prompt_template": self.prompt_template,
            "model": self.model,
            "score_pattern": self.score_pattern,
            "default_score": self.default_score,
            "normalize": self.normalize,
        }
