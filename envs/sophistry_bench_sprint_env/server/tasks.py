"""Advocacy tasks from the ``sophistry-bench-sprint`` package (PyPI): its QuALITY dev split
(50 passages with a question each) turned into 100 tasks by the package's own builder, one
defending the gold answer and one a distractor it picks.

The package ships the data; ``SOPHISTRY_QUALITY_JSON`` points the env at another file of the
same shape (the full QuALITY set converted to ``[{article_id, article, question, options,
gold_label}]``), read by the package's own loader.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

PASSAGE_CHARS = 2000  # the package's default truncation
DATA_SEED = 0  # the package's default distractor seed
SETTING = "SOPHISTRY_QUALITY_JSON"


class DataUnavailable(RuntimeError):
    """The QuALITY file cannot be read (the message says which and why)."""


@dataclass(frozen=True)
class Task:
    """One advocacy task: defend ``assigned`` for ``question`` from ``passage``."""

    index: int
    article_id: str
    passage: str
    question: str
    assigned: str
    gold: str
    is_gold: bool
    system_prompt: str


def sprint() -> Any:
    """The ``sophistry_bench_sprint`` module (imported on first use: it loads ``verifiers``)."""
    import sophistry_bench_sprint

    return sophistry_bench_sprint


def tasks(path: str | None = None) -> tuple[Task, ...]:
    """Every task of the QuALITY file at ``path`` (default: ``$SOPHISTRY_QUALITY_JSON``, else
    the package's own dev split)."""
    return _tasks_from(str(path or os.environ.get(SETTING) or sprint().packaged_quality_path()))


@cache
def _tasks_from(path: str) -> tuple[Task, ...]:
    sbs = sprint()
    source = Path(path)
    try:
        items = sbs.load_quality_from_json(source)
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise DataUnavailable(f"cannot read QuALITY tasks from {source}: {exc}") from exc
    rows = sbs.quality_to_advocacy_dataset(items, seed=DATA_SEED, passage_chars=PASSAGE_CHARS)
    return tuple(_task(i, row) for i, row in enumerate(rows))


def _task(index: int, row: dict[str, Any]) -> Task:
    info = row["info"]
    question = row["prompt"][0]["content"].rsplit("QUESTION: ", 1)[1].split("\n", 1)[0]
    return Task(
        index=index,
        article_id=str(info["article_id"]),
        passage=info["passage"],
        question=question,
        assigned=info["assigned_answer"],
        gold=row["answer"],
        is_gold=bool(info["is_gold"]),
        system_prompt=row["prompt"][0]["content"],
    )
