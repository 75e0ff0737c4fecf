"""A trainer's episodes, written as the playground exports them: ``client.record("run.jsonl")``.

Every step the client takes while recording becomes one line of the playground's episode format
(:mod:`openenv.web.episode.files`): ``action`` (the action sent), ``observation`` (as the server
sent it: frames in their wire encodings, reward components in its metadata), ``reward``,
``done``, plus ``episode`` (1, 2, ... one per ``reset``) and, on an episode's first step,
``reset`` (the options it was reset with) and ``env`` (the env package's name, for a typed
client: ``openenv render`` makes videos at that env's frame rate). Open the file in the
playground's Rewards tab (📂 Inspect episode) to scrub through it; a file of several episodes
opens at the first, with buttons to move between them. ::

    with env.record("run.jsonl"):        # or: recorder = env.record(...); recorder.close()
        env.reset(seed=0)
        env.step(action)

Lines are written as the steps come (a crash loses nothing before it) and flushed at close.
"""

from __future__ import annotations

from pathlib import Path
from typing import IO, Any, Self

from openenv.core.serialization import dump_json, load_untrusted

TAIL_BYTES = 1 << 20  # where appending looks for the last episode's number


class Recorder:
    """Appends the steps of one client to a JSONL file; see the module doc."""

    def __init__(self, path: str | Path, *, append: bool = False, env: str | None = None) -> None:
        self.path = Path(path)
        self.env = env
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self.episode = _last_episode(self.path) if append else 0  # the one being recorded
        self._file: IO[str] | None = self.path.open("a" if append else "w", encoding="utf-8")
        self.steps = 0  # steps written, all episodes
        self._reset: dict[str, Any] | None = None  # options of the reset, until its first step

    @property
    def closed(self) -> bool:
        return self._file is None

    def reset(self, options: dict[str, Any]) -> None:
        """An episode starts: the next step is its first."""
        self.episode += 1
        self._reset = dict(options)

    def step(self, action: dict[str, Any], payload: dict[str, Any]) -> None:
        """Write one step: the action sent and the server's observation payload."""
        if self._file is None:
            return
        observation = payload.get("observation") or {}
        metadata = payload.get("metadata")
        if metadata and not observation.get("metadata"):
            observation = {**observation, "metadata": metadata}
        record: dict[str, Any] = {
            "episode": max(self.episode, 1),
            "action": action,
            "observation": observation,
            "reward": payload.get("reward"),
            "done": bool(payload.get("done", False)),
        }
        if self._reset is not None:
            record["reset"], self._reset = self._reset, None
            if self.env:
                record["env"] = self.env
        self._file.write(dump_json(record) + "\n")
        self.steps += 1

    def close(self) -> None:
        file, self._file = self._file, None
        if file is not None:
            file.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _last_episode(path: Path) -> int:
    """The ``episode`` of the last line of an existing recording (0 if none), so that an
    appended run goes on numbering after it."""
    try:
        with path.open("rb") as file:
            size = file.seek(0, 2)
            file.seek(max(0, size - TAIL_BYTES))
            lines = file.read().splitlines()
    except FileNotFoundError:
        return 0
    for line in reversed(lines):
        try:
            episode = load_untrusted(line.decode("utf-8", "replace")).get("episode")
        except (ValueError, AttributeError):
            continue
        if isinstance(episode, int) and not isinstance(episode, bool):
            return episode
    return 0
