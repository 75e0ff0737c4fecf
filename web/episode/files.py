"""Read an exported episode (``openenv.web.episode.export.episode_jsonl``) back into the
playground's records.

The file has one JSON object per line with ``action`` (object), ``observation`` (object), ``reward``
(number or null) and ``done`` (boolean), and optionally ``label`` (the text of the button pressed);
only the last step may be done. Anything else is refused with the line number and what to fix, so a
truncated or hand-edited file never shows a wrong curve.

A file the client's recorder wrote (:mod:`openenv.client.recorder`) holds several episodes: each
line also has ``episode`` (a number; a new number starts a new episode) and an episode's first
line may have ``reset`` (the options it was reset with). :func:`parse_episodes_jsonl` reads both
kinds; a file without ``episode`` keys is one episode.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

from openenv.core.serialization import load_untrusted

KEYS = ("action", "observation", "reward", "done")
MAX_BYTES = 32 * 1024 * 1024
MAX_STEPS = 100_000


class EpisodeFileError(ValueError):
    """The file is not an exported episode; the message says where and why."""


@dataclass
class RecordedEpisode:
    """One episode of a file: its number (``episode``), reset options, steps, and the env it
    was played on when the file names it (``env`` on its first line: its frame rate for video)."""

    number: Any
    reset: dict[str, Any] | None
    steps: list[dict[str, Any]] = field(default_factory=list)
    env: str | None = None


def parse_episode_jsonl(data: str | bytes) -> list[dict[str, Any]]:
    """The steps of an exported episode (the first, in a file of several)."""
    return parse_episodes_jsonl(data)[0].steps


def parse_episodes_jsonl(data: str | bytes) -> list[RecordedEpisode]:
    """The episodes of a file, each step exactly as the playground (or the recorder) wrote it."""
    text = _text(data)
    episodes: list[RecordedEpisode] = []
    total = 0
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        if total >= MAX_STEPS:
            raise EpisodeFileError(f"more than {MAX_STEPS} steps: split the file to inspect it")
        step, episode, reset = _step(line, number)
        if not episodes or episode != episodes[-1].number:
            episodes.append(RecordedEpisode(episode, reset, env=_env_name(line)))
        elif episodes[-1].steps[-1]["done"]:
            raise EpisodeFileError(
                f"line {number}: a step follows the step that ended the episode (done: true); "
                'a new episode needs a new number in its lines\' "episode"'
            )
        episodes[-1].steps.append(step)
        total += 1
    if not episodes:
        raise EpisodeFileError(
            "the file has no steps: export an episode with ⬇ JSONL after taking at least one step"
        )
    return episodes


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


def _step(line: str, number: int) -> tuple[dict[str, Any], Any, dict[str, Any] | None]:
    """A line's step, its episode number (None: a single-episode file) and reset options."""
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
    episode = record.get("episode")
    if episode is not None and (isinstance(episode, bool) or not isinstance(episode, int)):
        raise EpisodeFileError(f"line {number}: episode must be a whole number")
    reset = record.get("reset")
    if reset is not None and not isinstance(reset, dict):
        raise EpisodeFileError(f"line {number}: reset must be a JSON object of reset options")
    return step, episode, reset


def _env_name(line: str) -> str | None:
    """The ``env`` a line names (an env package's name), if it is a short plain name."""
    env = load_untrusted(line).get("env")
    if isinstance(env, str) and 0 < len(env) <= 64 and env.replace("_", "").isalnum():
        return env
    return None


def _finite(number: float) -> bool:
    """Whether a reward is a finite number a float can hold (an integer of 5,000 digits is not)."""
    try:
        return math.isfinite(float(number))
    except OverflowError:
        return False
