"""The published AgentWorldModel-1K set: download it, read its scenarios, build their databases,
and make each a playable scenario with our generator's table tools.

The set (Hub dataset ``Snowflake/AgentWorldModel-1K``, made by the ``agent-world-model``
pipeline) is a folder of JSONL files, one record per scenario:

- ``gen_tasks.jsonl``: ``{"scenario", "tasks": [str, ...]}``;
- ``gen_db.jsonl``: ``{"scenario", "db_schema": {"tables": [{"name", "ddl", "indexes"}]}}``;
- ``gen_sample.jsonl``: ``{"scenario", "sample_data": {"tables": [{"table_name",
  "insert_statements"}]}}`` (the initial state);
- ``gen_envs.jsonl``: each scenario's tool server as generated Python code (``full_code``).

:func:`load_published` reads the first three; :func:`build_database` runs a scenario's schema and
inserts in an in-memory SQLite database under an authorizer that allows only table and index
creation and inserts (the SQL is data, never a program). The generated tool code of
``gen_envs.jsonl`` and the generated verifier functions are not run by this server:
:func:`scenario_of` gives a published scenario our generator's CRUD tools over its own
tables (played with ``list_<table>``, ``get_<row>``, ... rather than its original endpoints),
verified in ``sql`` mode (the judge endpoint); ``code`` mode needs expected changes that the
set does not carry as data.
"""

from __future__ import annotations

import functools
import json
import os
import re
import sqlite3
from pathlib import Path
from typing import Any

from pydantic import BaseModel, Field

from agent_world_model_env.server.generator import (
    ColumnType,
    Scenario,
    Table,
    Task,
    WorldSpec,
    generate,
)

REPO_ID = "Snowflake/AgentWorldModel-1K"
DATA_DIR_ENV = "AWM_DATA_DIR"
FILES = ("gen_tasks.jsonl", "gen_db.jsonl", "gen_sample.jsonl")
MAX_RECORD_BYTES = 4 << 20
MAX_STATEMENTS = 20_000


class PublishedDataUnavailable(RuntimeError):
    """The published set could not be downloaded or read; the message says what to do."""


class PublishedTable(BaseModel):
    name: str = ""
    ddl: str
    indexes: list[str] = Field(default_factory=list)


class PublishedScenario(BaseModel):
    """One published scenario: its tasks, schema and initial rows."""

    name: str
    tasks: list[str]
    tables: list[PublishedTable] = Field(default_factory=list)
    inserts: list[str] = Field(default_factory=list)


def normalize(name: str) -> str:
    """The set's scenario key: lower case, runs of other characters as one underscore."""
    return re.sub(r"_+", "_", re.sub(r"[^a-z0-9_]", "_", name.lower())).strip("_")


def download(local_dir: str | Path, endpoint: str | None = None) -> Path:
    """Download the set's JSONL files into ``local_dir`` (needs the Hub; returns the folder)."""
    try:
        from huggingface_hub import snapshot_download
    except ImportError as exc:
        raise PublishedDataUnavailable("downloading needs huggingface_hub") from exc
    try:
        path = snapshot_download(
            REPO_ID,
            repo_type="dataset",
            local_dir=str(local_dir),
            allow_patterns=["*.jsonl"],
            endpoint=endpoint,
        )
    except Exception as exc:  # the network boundary: any failure becomes one clear error
        raise PublishedDataUnavailable(
            f"could not download {REPO_ID} ({type(exc).__name__}: {str(exc)[:300]}); download "
            f"it by hand and set {DATA_DIR_ENV} to the folder"
        ) from exc
    return Path(path)


def _records(folder: Path, filename: str) -> list[dict[str, Any]]:
    found = next(iter(sorted(folder.rglob(filename))), None)
    if found is None:
        raise PublishedDataUnavailable(f"{folder}: no {filename} (is this the AWM-1K folder?)")
    records = []
    with found.open(encoding="utf-8") as lines:
        for number, line in enumerate(lines, start=1):
            if not line.strip():
                continue
            if len(line) > MAX_RECORD_BYTES:
                raise PublishedDataUnavailable(f"{found}, line {number}: record too large")
            try:
                record = json.loads(line)
            except json.JSONDecodeError as exc:
                raise PublishedDataUnavailable(
                    f"{found}, line {number}: not JSON ({exc})"
                ) from None
            if not isinstance(record, dict) or "scenario" not in record:
                raise PublishedDataUnavailable(f"{found}, line {number}: no scenario field")
            records.append(record)
    return records


def load_published(folder: str | Path) -> dict[str, PublishedScenario]:
    """Every scenario of the set in ``folder``, by normalized name."""
    root = Path(folder)
    if not root.is_dir():
        raise PublishedDataUnavailable(f"{DATA_DIR_ENV}={root}: no such folder")
    tasks, schemas, samples = (_records(root, name) for name in FILES)
    by_schema = {normalize(r["scenario"]): r.get("db_schema") or {} for r in schemas}
    by_sample = {normalize(r["scenario"]): r.get("sample_data") or {} for r in samples}
    scenarios: dict[str, PublishedScenario] = {}
    for record in tasks:
        key = normalize(record["scenario"])
        inserts = [
            stmt
            for table in by_sample.get(key, {}).get("tables", [])
            for stmt in table.get("insert_statements", [])
        ]
        scenarios[key] = PublishedScenario(
            name=key,
            tasks=[str(t) for t in record.get("tasks", [])],
            tables=by_schema.get(key, {}).get("tables", []),
            inserts=inserts[:MAX_STATEMENTS],
        )
    return scenarios


def configured() -> dict[str, PublishedScenario]:
    """The set in ``$AWM_DATA_DIR`` when set (read once per folder), else nothing."""
    folder = os.environ.get(DATA_DIR_ENV)
    return _cached(folder) if folder else {}


@functools.lru_cache(maxsize=2)
def _cached(folder: str) -> dict[str, PublishedScenario]:
    return load_published(folder)


_ALLOWED = {sqlite3.SQLITE_CREATE_TABLE, sqlite3.SQLITE_CREATE_INDEX, sqlite3.SQLITE_INSERT,
            sqlite3.SQLITE_READ, sqlite3.SQLITE_FUNCTION, sqlite3.SQLITE_REINDEX,
            sqlite3.SQLITE_TRANSACTION}  # fmt: skip


def _authorize(action: int, *args: Any) -> int:
    if action in _ALLOWED:
        return sqlite3.SQLITE_OK
    if action == sqlite3.SQLITE_UPDATE and args and str(args[0]).startswith("sqlite_"):
        return sqlite3.SQLITE_OK  # sqlite's own bookkeeping while creating tables
    return sqlite3.SQLITE_DENY


def build_database(scenario: PublishedScenario) -> tuple[sqlite3.Connection, list[str]]:
    """The scenario's initial state in memory, and the statements that failed (with why)."""
    db = sqlite3.connect(":memory:", check_same_thread=False)
    db.set_authorizer(_authorize)
    failed: list[str] = []
    statements = [s for t in scenario.tables for s in (t.ddl, *t.indexes)] + scenario.inserts
    for statement in statements:
        try:
            db.execute(statement)
        except (sqlite3.Error, sqlite3.Warning) as exc:
            failed.append(f"{statement[:80]}: {exc}")
    db.commit()
    db.set_authorizer(None)
    return db, failed


_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]{0,60}")


def _column_type(declared: str) -> ColumnType:
    declared = declared.upper()
    if "INT" in declared:
        return "int"
    if any(word in declared for word in ("REAL", "FLOA", "DOUB", "NUMERIC", "DECIMAL")):
        return "float"
    return "str"


def _row_name(table: str) -> str:
    if table.endswith("ies"):
        return table[:-3] + "y"
    if table.endswith("s") and not table.endswith("ss"):
        return table[:-1]
    return f"{table}_row"


def _tables_of(db: sqlite3.Connection) -> list[Table]:
    tables = []
    names = db.execute("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")
    for (name,) in names.fetchall():
        if not _IDENT.fullmatch(name) or name.startswith("sqlite_"):
            continue  # a name our tools cannot carry safely is left out
        info = db.execute(f"PRAGMA table_info({name})").fetchall()
        columns = {
            c[1]: _column_type(c[2] or "")
            for c in info
            if _IDENT.fullmatch(c[1]) and not c[1].startswith("_") and c[1] != "rowid"
        }  # a column our tools cannot take as an argument is left out
        keys = [c for c in info if c[5]]
        integer_key = len(keys) == 1 and (keys[0][2] or "").upper() == "INTEGER"
        key = keys[0][1] if integer_key else "rowid"
        tables.append(Table(name, _row_name(name), columns, [], key=key))
    return tables


_MADE: dict[tuple[str, int], tuple[PublishedScenario, Scenario]] = {}


def _scenario_cached(scenario: PublishedScenario) -> Scenario:
    made = _MADE.get((scenario.name, id(scenario)))
    if made is not None and made[0] is scenario:
        return made[1]
    if len(_MADE) >= 64:
        _MADE.clear()
    result = _make(scenario)
    _MADE[(scenario.name, id(scenario))] = (scenario, result)
    return result


def _make(scenario: PublishedScenario) -> Scenario:
    db, _ = build_database(scenario)
    tables = _tables_of(db)
    db.close()
    spec = WorldSpec(
        name=scenario.name,
        description=f"AgentWorldModel-1K scenario ({len(tables)} tables)",
        tables=tuple(tables),
        tasks=tuple(Task(prompt, ()) for prompt in scenario.tasks),
    )
    return generate(spec, builder=lambda: build_database(scenario)[0], source="AgentWorldModel-1K")


def scenario_of(scenario: PublishedScenario) -> Scenario:
    """The published scenario as one of ours: its database, our generated tools over its
    tables, its tasks (verified in sql mode)."""
    if not scenario.tasks:
        raise PublishedDataUnavailable(f"{scenario.name}: no tasks")
    return _scenario_cached(scenario)
