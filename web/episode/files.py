"""Read an exported episode (``openenv.web.episode.export.episode_jsonl``) back into the
playground's records.

The file has one JSON object per line with ``action`` (object), ``observation`` (object), ``reward``
(number or null) and ``done`` (boolean), and optionally ``label`` (the text of the button pressed);
only the last step may be done. Anything else is refused with the line number and what to fix, so a
truncated or hand-edited file never shows a wrong curve.
"""

from __future__ import annotations

import math
from typing import Any

from openenv.core.serialization import load_untrusted

KEYS = ("action", "observation", "reward", "done")
MAX_BYTES = 32 * 1024 * 1024
MAX_STEPS = 100_000


class EpisodeFileError(ValueError):
    """The file is not an exported episode; the message says where and why."""


def parse_episode_jsonl(data: str | bytes) -> list[dict[str, Any]]:
    """The steps of an exported episode, exactly as the playground recorded them."""
    text = _text(data)
    steps: list[dict[str, Any]] = []
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        if len(steps) >= MAX_STEPS:
            raise EpisodeFileError(f"more than {MAX_STEPS} steps: split the episode to inspect it")
        if steps and steps[-1]["done"]:
            raise EpisodeFileError(
                f"line {number}: a step follows the step that ended the episode (done: true); "
                "a file holds one episode"
            )
        steps.append(_step(line, number))
    if not steps:
        raise EpisodeFileError(
            "the file has no steps: export an episode with ⬇ JSONL after taking at least one step"
        )
    return steps


def _text(data: str | bytes) -> str:
    if isinstance(data, bytes):
        if len(data) > MAX_BYTES:
            raise EpisodeFileError(f"the file is larger than {MAX_BYTES // 2**20} MB")
        try:
            return data.decode("utf-8-sig")
        except UnicodeDecodeError as exc:
            raise EpisodeFileError(
                f"not UTF-8 text (byte {exc.start}): choose the .jsonl file the playground exported"
            ) from None
    if len(data) > MAX_BYTES:
        raise EpisodeFileError(f"the file is larger than {MAX_BYTES // 2**20} MB")
    return data.removeprefix("\ufeff")


def _step(line: str, number: int) -> dict[str, Any]:
    try:
        record = load_untrusted(line)
    except ValueError as exc:
        text = str(exc)
        if text.startswith("not valid JSON: "):
            text = f"not JSON ({text.removeprefix('not valid JSON: ')})"
        raise EpisodeFileError(f"line {number}: {text}") from None
    if not isinstance(record, dict):
        raise EpisodeFileError(
            f"line {number}: expected a JSON object with {', '.join(KEYS)}, "
            f"got {type(record).__name__}"
        )
    missing = [key for key in KEYS if key not in record]
    if missing:
        raise EpisodeFileError(f"line {number}: missing {', '.join(missing)}")
    for key in ("action", "observation"):
        if not isinstance(record[key], dict):
            raise EpisodeFileError(f"line {number}: {key} must be a JSON object")
    reward = record["reward"]
    if reward is not None and (
        isinstance(reward, bool) or not isinstance(reward, int | float) or not _finite(reward)
    ):
        raise EpisodeFileError(f"line {number}: reward must be a finite number or null")
    if not isinstance(record["done"], bool):
        raise EpisodeFileError(f"line {number}: done must be true or false")
    step = {key: record[key] for key in KEYS}
    label = record.get("label")
    if label is not None:
        if not isinstance(label, str):
            raise EpisodeFileError(f"line {number}: label must be text (the button's label)")
        step["label"] = label
    return step


def _finite(number: float) -> bool:
    """Whether a reward is a finite number a float can hold (an integer of 5,000 digits is not)."""
    try:
        return math.isfinite(float(number))
    except OverflowError:
        return False
