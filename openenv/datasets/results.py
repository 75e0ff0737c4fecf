"""``results.jsonl`` (one :class:`~openenv.datasets.records.EpisodeRecord` a line, appended as
each episode ends) and ``metadata.json`` (the run's settings) in a collect directory, the files
``openenv collect`` 0.10 writes. ``--resume`` reads the episode ids already there."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from openenv.datasets.records import EpisodeRecord

RESULTS_FILENAME = "results.jsonl"
METADATA_FILENAME = "metadata.json"


class ResultsFile:
    """The collect directory ``output_dir``: its results and its metadata."""

    def __init__(self, output_dir: Path | str) -> None:
        self.output_dir = Path(output_dir)

    @property
    def results_path(self) -> Path:
        return self.output_dir / RESULTS_FILENAME

    @property
    def metadata_path(self) -> Path:
        return self.output_dir / METADATA_FILENAME

    def append(self, record: EpisodeRecord) -> None:
        """Add one episode (a line cut short by a crash before it is ended first)."""
        self.output_dir.mkdir(parents=True, exist_ok=True)
        with self.results_path.open("a+b") as handle:
            end = handle.seek(0, 2)
            if end:
                handle.seek(end - 1)
                if handle.read(1) != b"\n":
                    handle.write(b"\n")
            handle.write(record.to_line().encode("utf-8") + b"\n")

    def write_metadata(self, metadata: dict[str, Any]) -> None:
        self.output_dir.mkdir(parents=True, exist_ok=True)
        text = json.dumps(metadata, indent=2, default=str)
        self.metadata_path.write_text(text + "\n", encoding="utf-8")

    def read_metadata(self) -> dict[str, Any]:
        if not self.metadata_path.is_file():
            return {}
        return json.loads(self.metadata_path.read_text(encoding="utf-8"))

    def records(self) -> Iterator[EpisodeRecord]:
        """The episodes on disk, in order; a line that is not a record is skipped (a run
        killed mid-write leaves at most one)."""
        if not self.results_path.is_file():
            return
        with self.results_path.open(encoding="utf-8") as handle:
            for line in handle:
                if not line.strip():
                    continue
                try:
                    yield EpisodeRecord.model_validate_json(line)
                except ValueError:
                    continue

    def episode_ids(self) -> set[str]:
        """The ids already collected (what ``--resume`` skips)."""
        return {record.episode_id for record in self.records()}

    def set_aside(self) -> Path | None:
        """Move an existing ``results.jsonl`` to ``results.<UTC time>.bak.jsonl`` (``--no-resume``
        starts afresh without losing a run); return where it went."""
        if not self.results_path.is_file():
            return None
        stamp = time.strftime("%Y%m%dT%H%M%SZ", time.gmtime())
        target = self.results_path.with_name(f"results.{stamp}.bak.jsonl")
        n = 1
        while target.exists():
            target = self.results_path.with_name(f"results.{stamp}.{n}.bak.jsonl")
            n += 1
        self.results_path.replace(target)
        return target
