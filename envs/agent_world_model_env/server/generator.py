"""The one generator of our scenarios: a declarative world (tables, rows, tasks) in, a
scenario out (SQLite schema, initial rows, CRUD tools, tasks with code verifiers).

A world is data (:class:`WorldSpec`). From each table the generator makes five tools:
``list_<table>`` (optional equality filters, ``limit``), ``get_<row>`` (by id),
``create_<row>``, ``update_<row>`` (id plus the columns to change) and ``delete_<row>``.
Each task carries the changes the final database must show against the initial one
(:class:`Change`); the code verifier (:mod:`.verifier`) compares the two states.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any, Literal

ColumnType = Literal["int", "float", "str"]
SQL_TYPES = {"int": "INTEGER", "float": "REAL", "str": "TEXT"}
PY_TYPES: dict[str, type] = {"int": int, "float": float, "str": str}


@dataclass(frozen=True)
class Table:
    """A table: its plural name, the name of one row, its columns, its rows, and ``key``: the
    column that is the row's SQLite rowid (``id INTEGER PRIMARY KEY`` in our worlds), or
    ``rowid`` when the table has no such column (the rowid is then shown under that name)."""

    name: str
    row: str
    columns: dict[str, ColumnType]
    rows: list[dict[str, Any]]
    key: str = "id"

    @property
    def select(self) -> str:
        """The SELECT list that shows every column and the key."""
        return "*" if self.key in self.columns else "rowid AS rowid, *"


@dataclass(frozen=True)
class Change:
    """One expected change: ``insert`` / ``update`` / ``delete`` of a row matching ``match``
    (for an update: the row with ``id``, whose columns become ``match``)."""

    op: Literal["insert", "update", "delete"]
    table: str
    match: dict[str, Any] = field(default_factory=dict)
    id: int | None = None


@dataclass(frozen=True)
class Task:
    """What the user asks, and the changes that fulfil it (nothing else may change)."""

    prompt: str
    changes: tuple[Change, ...]


@dataclass(frozen=True)
class WorldSpec:
    name: str
    description: str
    tables: tuple[Table, ...]
    tasks: tuple[Task, ...]


@dataclass(frozen=True)
class ToolDef:
    """A generated tool: its name, what it does, its arguments (name → (type, required))."""

    name: str
    description: str
    kind: Literal["list", "get", "create", "update", "delete"]
    table: Table
    arguments: dict[str, tuple[ColumnType, bool]]


@dataclass(frozen=True)
class Scenario:
    """A generated world: its spec, its tools and the SQL that builds its initial state
    (or ``builder``, for a world whose database comes from elsewhere: the published set)."""

    spec: WorldSpec
    tools: tuple[ToolDef, ...]
    ddl: tuple[str, ...]
    builder: Callable[[], sqlite3.Connection] | None = None
    source: str = "shipped"

    @property
    def name(self) -> str:
        return self.spec.name

    def build(self) -> sqlite3.Connection:
        """A fresh in-memory database in the scenario's initial state."""
        if self.builder is not None:
            return self.builder()
        db = sqlite3.connect(":memory:", check_same_thread=False)
        for statement in self.ddl:
            db.execute(statement)
        for table in self.spec.tables:
            for row in table.rows:
                cols = ", ".join(row)
                marks = ", ".join("?" for _ in row)
                db.execute(
                    f"INSERT INTO {table.name} ({cols}) VALUES ({marks})", list(row.values())
                )
        db.commit()
        return db


def generate(
    spec: WorldSpec,
    builder: Callable[[], sqlite3.Connection] | None = None,
    source: str = "shipped",
) -> Scenario:
    """Generate a scenario's schema and tools from ``spec`` (with ``builder``, the database
    comes from it and only the tools are generated)."""
    tools: list[ToolDef] = []
    ddl: list[str] = []
    for table in spec.tables:
        cols = [f"{c} {SQL_TYPES[t]}" for c, t in table.columns.items() if c != table.key]
        ddl.append(
            f"CREATE TABLE {table.name} ({table.key} INTEGER PRIMARY KEY, {', '.join(cols)})"
        )
        tools.extend(_tools_of(table, spec.name))
    return Scenario(spec, tuple(tools), tuple(ddl), builder, source)


def _tools_of(table: Table, world: str) -> list[ToolDef]:
    return [replace(t, description=f"{t.description} ({world})") for t in _crud(table)]


def _crud(table: Table) -> list[ToolDef]:
    key = {table.key: ("int", True)}
    fields = {c: t for c, t in table.columns.items() if c != table.key}
    optional = {c: (t, False) for c, t in fields.items()}
    return [
        ToolDef(
            f"list_{table.name}",
            f"List {table.name} (filter by any column's exact value; at most `limit` rows).",
            "list",
            table,
            {**optional, "limit": ("int", False)},
        ),
        ToolDef(f"get_{table.row}", f"One {table.row} by {table.key}.", "get", table, key),
        ToolDef(
            f"create_{table.row}",
            f"Create a {table.row}; returns it with its new id.",
            "create",
            table,
            {c: (t, True) for c, t in fields.items()},
        ),
        ToolDef(
            f"update_{table.row}",
            f"Change the given columns of the {table.row} with this {table.key}.",
            "update",
            table,
            {**key, **optional},
        ),
        ToolDef(
            f"delete_{table.row}",
            f"Delete the {table.row} with this {table.key}.",
            "delete",
            table,
            key,
        ),
    ]
