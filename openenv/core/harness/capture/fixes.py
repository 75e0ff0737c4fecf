"""Parameter fixes a provider names in a 400: recognised, applied, cached per model, reported.

A hosted provider refuses parameters a local engine accepts (``max_tokens`` where it wants
``max_completion_tokens``, any ``temperature`` but the default, function tools unless
``reasoning_effort`` is ``"none"``, ``logprobs``; a strict one, fields it does not know, like
``return_token_ids`` or ``seed``). Each fix below is one edit of the upstream
request; the proxy applies the one a 400 names, retries, and records it on the result, because
these change the experiment (sampling distribution, reasoning) rather than only its wording.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class ParamFix:
    """One named request edit, with what it changes for the experiment."""

    name: str
    effect: str
    applies: Callable[[str, dict[str, Any]], bool]
    apply: Callable[[dict[str, Any]], None]


def _rename_max_tokens(body: dict[str, Any]) -> None:
    if "max_tokens" in body:
        body["max_completion_tokens"] = body.pop("max_tokens")


def _drop(*keys: str) -> Callable[[dict[str, Any]], None]:
    def edit(body: dict[str, Any]) -> None:
        for key in keys:
            body.pop(key, None)

    return edit


def _reasoning_none(body: dict[str, Any]) -> None:
    body["reasoning_effort"] = "none"


FIXES: tuple[ParamFix, ...] = (
    ParamFix(
        "max_completion_tokens",
        "max_tokens sent as max_completion_tokens",
        lambda msg, body: "max_tokens" in body and "max_completion_tokens" in msg,
        _rename_max_tokens,
    ),
    ParamFix(
        "drop_temperature",
        "temperature dropped: the provider samples at its default, not the agent's",
        lambda msg, body: "temperature" in body and "temperature" in msg,
        _drop("temperature"),
    ),
    ParamFix(
        "reasoning_effort_none",
        'reasoning_effort set to "none": reasoning is off for these calls',
        lambda msg, body: "reasoning_effort" in msg and body.get("reasoning_effort") != "none",
        _reasoning_none,
    ),
    ParamFix(
        "drop_token_ids",
        "token ids not requested: the provider refuses return_token_ids, so these calls carry "
        "no token ids (eval only)",
        lambda msg, body: "return_token_ids" in msg and "return_token_ids" in body,
        _drop("return_token_ids"),
    ),
    ParamFix(
        "drop_seed",
        "seed dropped: the provider samples unseeded",
        lambda msg, body: "seed" in msg and "seed" in body,
        _drop("seed"),
    ),
    ParamFix(
        "drop_logprobs",
        "logprobs not requested: the provider refuses them, so these calls are eval only",
        lambda msg, body: "logprobs" in msg and ("logprobs" in body or "top_logprobs" in body),
        _drop("logprobs", "top_logprobs", "return_token_ids"),
    ),
)
BY_NAME = {fix.name: fix for fix in FIXES}


def fix_for(message: str, body: dict[str, Any]) -> ParamFix | None:
    """The one fix a provider's 400 ``message`` names for this ``body``, if any."""
    lowered = message.lower()
    for fix in FIXES:
        if fix.applies(lowered, body):
            return fix
    return None


def apply_fixes(body: dict[str, Any], names: list[str]) -> None:
    """Apply already-learnt fixes (by name, in order) to an upstream body."""
    for name in names:
        BY_NAME[name].apply(body)
