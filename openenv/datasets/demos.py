"""Human demonstrations: the episodes visitors finish in the playground, kept in memory as
:class:`~openenv.datasets.records.EpisodeRecord` (the schema of ``openenv collect``, with
``extra["source"] == "demo"``), so they mix with teacher rollouts in one dataset.

Off by default. The operator turns it on with ``OPENENV_DEMOS=1`` or
``create_app(..., demos=True)`` (or ``demos=DemoSettings(...)``); the store keeps at most
``OPENENV_DEMOS_MAX_EPISODES`` episodes (default 500) and ``OPENENV_DEMOS_MAX_BYTES`` bytes of
them (default 64 MiB), dropping the oldest first. A visitor sees that collection is on, can
leave any episode out, and can mark one with a note. Nothing is written to disk: the operator
downloads or pushes the dataset.
"""

from __future__ import annotations

import os
import secrets
import threading
import time
from collections import OrderedDict
from dataclasses import dataclass

from openenv.datasets.records import EpisodeRecord

MAX_NOTE_CHARS = 500
DEFAULT_MAX_EPISODES = 500
DEFAULT_MAX_BYTES = 64 * 2**20
_ON = {"1", "true", "yes", "on"}


@dataclass(frozen=True)
class DemoSettings:
    """Whether the playground keeps demonstrations, and how many bytes and episodes at most.
    ``repo_id``: where ``push`` uploads them; ``key``: the bearer key that downloads them (the
    server's API token does too; without either, only loopback may)."""

    enabled: bool = False
    max_episodes: int = DEFAULT_MAX_EPISODES
    max_bytes: int = DEFAULT_MAX_BYTES
    repo_id: str | None = None
    key: str | None = None

    @classmethod
    def from_env(cls) -> DemoSettings:
        """``OPENENV_DEMOS``, ``OPENENV_DEMOS_MAX_EPISODES``, ``OPENENV_DEMOS_MAX_BYTES``,
        ``OPENENV_DEMOS_REPO``, ``OPENENV_DEMOS_KEY``."""
        env = os.environ
        return cls(
            enabled=env.get("OPENENV_DEMOS", "").strip().lower() in _ON,
            max_episodes=_positive(env.get("OPENENV_DEMOS_MAX_EPISODES"), DEFAULT_MAX_EPISODES),
            max_bytes=_positive(env.get("OPENENV_DEMOS_MAX_BYTES"), DEFAULT_MAX_BYTES),
            repo_id=env.get("OPENENV_DEMOS_REPO") or None,
            key=env.get("OPENENV_DEMOS_KEY") or None,
        )


def _positive(value: str | None, default: int) -> int:
    try:
        number = int(value) if value else default
    except ValueError:
        return default
    return number if number > 0 else default


def new_demo_id() -> str:
    """A fresh episode id for a demonstration: ``demo-<UTC time>-<random>``."""
    return f"demo-{time.strftime('%Y%m%dT%H%M%SZ', time.gmtime())}-{secrets.token_hex(4)}"


def clean_note(note: object) -> str:
    """A visitor's note as kept: text, stripped, at most MAX_NOTE_CHARS characters."""
    return str(note or "").strip()[:MAX_NOTE_CHARS]


class DemoStore:
    """The kept demonstrations, oldest first, within the settings' bounds (thread-safe)."""

    def __init__(self, settings: DemoSettings) -> None:
        self.settings = settings
        self._records: OrderedDict[str, tuple[EpisodeRecord, int]] = OrderedDict()
        self._bytes = 0
        self._lock = threading.Lock()
        self.dropped = 0  # episodes pushed out by the bounds since start

    def __len__(self) -> int:
        return len(self._records)

    @property
    def bytes(self) -> int:
        return self._bytes

    def keep(self, record: EpisodeRecord) -> bool:
        """Keep ``record`` (replacing one with its id), dropping the oldest over the bounds;
        False when it alone is larger than the byte bound (it is not kept)."""
        size = len(record.to_line().encode("utf-8"))
        with self._lock:
            self._discard(record.episode_id)
            if size > self.settings.max_bytes:
                return False
            self._records[record.episode_id] = (record, size)
            self._bytes += size
            while len(self._records) > self.settings.max_episodes or (
                self._bytes > self.settings.max_bytes
            ):
                _, (_, old) = self._records.popitem(last=False)
                self._bytes -= old
                self.dropped += 1
            return True

    def discard(self, episode_id: str) -> bool:
        """Forget one episode (its visitor opted out after it ended)."""
        with self._lock:
            return self._discard(episode_id)

    def _discard(self, episode_id: str) -> bool:
        kept = self._records.pop(episode_id, None)
        if kept is not None:
            self._bytes -= kept[1]
        return kept is not None

    def mark(self, episode_id: str, note: str) -> bool:
        """Flag a kept episode with ``note``; False when it is not (or no longer) kept."""
        with self._lock:
            kept = self._records.get(episode_id)
        if kept is None:
            return False
        record = kept[0]
        extra = {**record.extra, "marked": True, "note": clean_note(note)}
        return self.keep(record.model_copy(update={"extra": extra}))

    def records(self) -> list[EpisodeRecord]:
        """The kept episodes, oldest first."""
        with self._lock:
            return [record for record, _ in self._records.values()]
