"""The channel format a reply must follow, and its parser.

A reply is exactly three blocks, in this order, with only whitespace around them::

    <|channel|>analysis<|message|>...<|end|>
    <|channel|>proof<|message|>...<|end|>
    <|channel|>final<|message|>...<|end|>

Each message is non-empty. :func:`parse` returns the three messages, or the reasons the reply
fails the format gate (every reason, so the agent can fix them all at once).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

CHANNELS = ("analysis", "proof", "final")
_BLOCK = re.compile(r"<\|channel\|>(.*?)<\|message\|>(.*?)<\|end\|>", re.DOTALL)
_MARKERS = ("<|channel|>", "<|message|>", "<|end|>")
MAX_REASONS = 6


@dataclass
class Parsed:
    """The messages found, by channel name (in order), and why the format failed (empty: ok)."""

    messages: dict[str, str] = field(default_factory=dict)
    problems: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.problems


def parse(reply: str) -> Parsed:
    """Split ``reply`` into its channels and check them against the required structure."""
    parsed = Parsed()
    names: list[str] = []
    cursor = 0
    for match in _BLOCK.finditer(reply):
        _outside(reply[cursor : match.start()], parsed)
        name, message = match.group(1).strip(), match.group(2).strip()
        names.append(name)
        parsed.messages.setdefault(name, message)
        if name in CHANNELS and not message:
            parsed.problems.append(f"the {name} channel is empty")
        cursor = match.end()
    _outside(reply[cursor:], parsed)
    if tuple(names) != CHANNELS:
        shown = " → ".join(names) if names else "no channel blocks"
        parsed.problems.insert(0, f"expected analysis → proof → final, got {shown}")
    del parsed.problems[MAX_REASONS:]
    return parsed


def _outside(text: str, parsed: Parsed) -> None:
    stray = text.strip()
    if not stray:
        return
    if any(marker in stray for marker in _MARKERS):
        parsed.problems.append(f"a malformed channel block: {_clip(stray)!r}")
    else:
        parsed.problems.append(f"text outside the channels: {_clip(stray)!r}")


def _clip(text: str, limit: int = 60) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def format_reply(analysis: str, proof: str, final: str) -> str:
    """A reply in the required format (used by the oracle, the examples and the tests)."""
    return "".join(
        f"<|channel|>{name}<|message|>{text}<|end|>"
        for name, text in zip(CHANNELS, (analysis, proof, final), strict=True)
    )
