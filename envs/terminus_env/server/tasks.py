"""The shipped tasks of the terminal environment and their checkers.

A task prepares the working directory (files drawn from the episode's seeded ``rng``), tells
the agent what to do, and scores the outcome once the agent submits a final answer: the
checker reads the working directory through the sandbox (:mod:`terminus_env.server.workspace`)
and compares it with what the task expects. Scores are in [0, 1].
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Protocol

from terminus_env.server.workspace import Snapshot

GREETING = "Hello, terminal!"


@dataclass(frozen=True)
class Prepared:
    """One episode of a task: what the agent reads, the files it starts with, the key."""

    instruction: str
    files: dict[str, str] = field(default_factory=dict)
    expected: dict = field(default_factory=dict)


@dataclass(frozen=True)
class Verdict:
    score: float
    reason: str


class Task(Protocol):
    name: str
    title: str

    def prepare(self, rng: random.Random) -> Prepared: ...

    def wants(self, prepared: Prepared) -> tuple[list[str], list[str]]:
        """The files and directories (relative paths) the checker reads."""
        ...

    def check(self, prepared: Prepared, seen: Snapshot, answer: str) -> Verdict: ...


class HelloFile:
    name = "hello_file"
    title = "Create a file"

    def prepare(self, rng: random.Random) -> Prepared:
        text = (
            f"Create a file named hello.txt in your home directory (~) that contains exactly "
            f"one line: {GREETING}\nThen call terminal(final_answer='done')."
        )
        return Prepared(text)

    def wants(self, prepared: Prepared) -> tuple[list[str], list[str]]:
        return ["hello.txt"], []

    def check(self, prepared: Prepared, seen: Snapshot, answer: str) -> Verdict:
        text = seen.files.get("hello.txt")
        if text is None:
            return Verdict(0.0, "~/hello.txt does not exist")
        if text.rstrip("\n") == GREETING and text.count("\n") <= 1:
            return Verdict(1.0, "~/hello.txt holds the greeting")
        return Verdict(0.0, f"~/hello.txt holds {text[:60]!r}, not {GREETING!r}")


_PATHS = ["/api/items", "/api/users", "/login", "/api/orders", "/health", "/static/app.js"]
_WARNINGS = ["slow query", "retrying upstream", "cache miss storm", "deprecated header"]


class FindError:
    name = "find_error"
    title = "Find the failing request in a log"

    def prepare(self, rng: random.Random) -> Prepared:
        lines, culprit = [], rng.randrange(120, 280)
        for i in range(300):
            req = f"req-{rng.getrandbits(24):06x}"
            stamp = f"2024-05-01T12:{i // 60:02d}:{i % 60:02d}Z"
            if i == culprit:
                answer = req
                lines.append(f"{stamp} ERROR {req} POST /api/orders 500 upstream timed out")
            elif rng.random() < 0.08:
                lines.append(f"{stamp} WARN  {req} {rng.choice(_WARNINGS)}")
            else:
                ms = rng.randrange(2, 90)
                lines.append(f"{stamp} INFO  {req} GET {rng.choice(_PATHS)} 200 {ms}ms")
        text = (
            "logs/app.log holds one line at level ERROR among hundreds. Find it and submit its "
            "request id (the req-... field) as your final answer: terminal(final_answer='req-...')."
        )
        return Prepared(text, {"logs/app.log": "\n".join(lines) + "\n"}, {"request": answer})

    def wants(self, prepared: Prepared) -> tuple[list[str], list[str]]:
        return [], []

    def check(self, prepared: Prepared, seen: Snapshot, answer: str) -> Verdict:
        if answer.strip() == prepared.expected["request"]:
            return Verdict(1.0, "that is the failing request")
        return Verdict(0.0, f"{answer.strip()[:40]!r} is not the request id of the ERROR line")


_STEMS = ["sales", "users", "report", "notes", "budget", "todo", "inventory", "readme", "events"]


class SortInbox:
    name = "sort_inbox"
    title = "Sort files into a directory"

    def prepare(self, rng: random.Random) -> Prepared:
        stems = rng.sample(_STEMS, 6)
        exts = ["csv", "csv", rng.choice(["csv", "txt"]), "txt", "md", rng.choice(["md", "log"])]
        files = {}
        for stem, ext in zip(stems, exts, strict=True):
            rows = "\n".join(f"{rng.randrange(100)},{rng.randrange(100)}" for _ in range(3))
            files[f"inbox/{stem}.{ext}"] = f"id,value\n{rows}\n" if ext == "csv" else f"{stem}\n"
        text = (
            "Move every .csv file from inbox/ into a new directory csv/ (keep their names and "
            "contents); leave the other files in inbox/. Then call terminal(final_answer='done')."
        )
        return Prepared(text, files, {"files": files})

    def wants(self, prepared: Prepared) -> tuple[list[str], list[str]]:
        names = [path.split("/", 1)[1] for path in prepared.expected["files"]]
        csvs = [f"csv/{n}" for n in names if n.endswith(".csv")]
        return csvs, ["inbox", "csv"]

    def check(self, prepared: Prepared, seen: Snapshot, answer: str) -> Verdict:
        files: dict[str, str] = prepared.expected["files"]
        inbox, csv = set(seen.dirs.get("inbox") or []), set(seen.dirs.get("csv") or [])
        right = []
        for path, text in files.items():
            name = path.split("/", 1)[1]
            if name.endswith(".csv"):
                right.append(
                    name in csv and name not in inbox and seen.files[f"csv/{name}"] == text
                )
            else:
                right.append(name in inbox and name not in csv)
        score = sum(right) / len(right)
        return Verdict(round(score, 4), f"{sum(right)} of {len(right)} files where they belong")


TASKS: dict[str, Task] = {task.name: task for task in (HelloFile(), FindError(), SortInbox())}
