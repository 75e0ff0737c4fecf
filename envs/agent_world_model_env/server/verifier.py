"""The two verifier modes: ``code`` compares the initial and final database states against the
task's expected changes (deterministic, no model); ``sql`` extracts the same state changes with
SQL and asks the operator's judge model (:func:`openenv.core.llm.llm_endpoint`) whether the task
is done. No judge configured: the verdict says so and no score is invented.
"""

from __future__ import annotations

import json
import re
import sqlite3
from dataclasses import dataclass, field
from typing import Any

from agent_world_model_env.server.generator import Change, Scenario, Task
from openenv.core.llm import NOT_CONFIGURED, LLMEndpoint, LLMUnavailable

MAX_DIFF_LINES = 200


@dataclass(frozen=True)
class RowChange:
    """One difference between the initial and the final state."""

    op: str  # insert, update, delete
    table: str
    id: int
    before: dict[str, Any] | None
    after: dict[str, Any] | None

    def describe(self) -> str:
        if self.op == "insert":
            return f"{self.table}: inserted {self.after}"
        if self.op == "delete":
            return f"{self.table}: deleted {self.before}"
        assert self.before is not None and self.after is not None
        changed = {k: (self.before[k], v) for k, v in self.after.items() if self.before[k] != v}
        shown = ", ".join(f"{k} {old!r} → {new!r}" for k, (old, new) in changed.items())
        return f"{self.table} #{self.id}: {shown}"


@dataclass
class Verdict:
    """``complete`` (True/False), or None when it could not be judged; and why."""

    complete: bool | None
    mode: str
    reason: str
    changes: list[str] = field(default_factory=list)


def snapshot(db: sqlite3.Connection, scenario: Scenario) -> dict[str, dict[int, dict[str, Any]]]:
    """Every row of every table of ``scenario``, by table and id."""
    state: dict[str, dict[int, dict[str, Any]]] = {}
    for table in scenario.spec.tables:
        cursor = db.execute(f"SELECT rowid, {table.select} FROM {table.name} ORDER BY rowid")
        names = [d[0] for d in cursor.description][1:]
        state[table.name] = {row[0]: dict(zip(names, row[1:], strict=True)) for row in cursor}
    return state


def diff(before: dict, after: dict) -> list[RowChange]:
    """The row changes from ``before`` to ``after`` (two :func:`snapshot` results)."""
    changes: list[RowChange] = []
    for table, rows in after.items():
        old_rows = before.get(table, {})
        for row_id, row in rows.items():
            old = old_rows.get(row_id)
            if old is None:
                changes.append(RowChange("insert", table, row_id, None, row))
            elif old != row:
                changes.append(RowChange("update", table, row_id, old, row))
        for row_id, old in old_rows.items():
            if row_id not in rows:
                changes.append(RowChange("delete", table, row_id, old, None))
    return changes


def _matches(expected: Change, actual: RowChange) -> bool:
    if expected.op != actual.op or expected.table != actual.table:
        return False
    if expected.id is not None and expected.id != actual.id:
        return False
    if expected.op == "delete":
        return True
    assert actual.after is not None
    if expected.op == "update":
        assert actual.before is not None
        moved = {k for k, v in actual.after.items() if actual.before[k] != v}
        if moved != set(expected.match):
            return False
    return all(_same(actual.after.get(k), v) for k, v in expected.match.items())


def _same(actual: Any, expected: Any) -> bool:
    if isinstance(expected, float) or isinstance(actual, float):
        try:
            return abs(float(actual) - float(expected)) < 1e-6
        except (TypeError, ValueError):
            return False
    return actual == expected


def verify_code(task: Task, before: dict, after: dict) -> Verdict:
    """Complete when the changes are exactly the task's expected changes."""
    actual = diff(before, after)
    shown = [c.describe() for c in actual][:MAX_DIFF_LINES]
    unmatched = list(actual)
    for expected in task.changes:
        hit = next((c for c in unmatched if _matches(expected, c)), None)
        if hit is None:
            what = f"{expected.op} in {expected.table}" + (
                f" #{expected.id}" if expected.id else ""
            )
            reason = (
                f"missing: {what} with {expected.match}" if expected.match else f"missing: {what}"
            )
            return Verdict(False, "code", reason, shown)
        unmatched.remove(hit)
    if unmatched:
        return Verdict(False, "code", f"unexpected change: {unmatched[0].describe()}", shown)
    return Verdict(True, "code", f"all {len(task.changes)} expected change(s), nothing else", shown)


def verify_sql(
    task: Task, before: dict, after: dict, judge: LLMEndpoint | None, final_answer: str | None
) -> Verdict:
    """Ask the judge whether the state changes (and the final answer) complete the task."""
    shown = [c.describe() for c in diff(before, after)][:MAX_DIFF_LINES]
    if judge is None:
        return Verdict(None, "sql", f"not judged: {NOT_CONFIGURED}", shown)
    prompt = (
        f"Task given to an agent: {task.prompt}\n"
        f"Database changes it made (initial → final):\n"
        + ("\n".join(f"- {line}" for line in shown) or "- none")
        + (f"\nThe agent's final answer: {final_answer[:2000]}" if final_answer else "")
        + '\nDid the agent complete the task exactly? Answer with JSON: {"complete": true|false, '
        '"reason": "..."}'
    )
    try:
        text = judge.complete(prompt, system="You verify database tasks strictly.", max_tokens=300)
    except LLMUnavailable as exc:
        return Verdict(None, "sql", f"not judged: {exc}", shown)
    complete, reason = _read_judgement(text)
    if complete is None:
        return Verdict(None, "sql", f"not judged: unreadable judge reply {text[:200]!r}", shown)
    return Verdict(complete, "sql", f"judge: {reason}", shown)


def _read_judgement(text: str) -> tuple[bool | None, str]:
    match = re.search(r"\{.*\}", text, re.DOTALL)
    if match:
        try:
            data = json.loads(match.group(0))
        except json.JSONDecodeError:
            data = None
        if isinstance(data, dict) and isinstance(data.get("complete"), bool):
            return data["complete"], str(data.get("reason", ""))[:500]
    return None, ""
