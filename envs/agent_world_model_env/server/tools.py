"""The generated tools as MCP tools: one typed method per :class:`~.generator.ToolDef`, and the
code that runs a tool against a scenario's database (bounded: rows, text lengths).

:func:`tool_mixin` turns the tools of every shipped scenario into a class whose methods carry
the ``@tool`` marker, so ``tools/list``, ``/mcp`` and the playground's Tools tab see them with
their schemas; each method runs through :meth:`ScenarioHost.run_tool`.
"""

from __future__ import annotations

import inspect
import sqlite3
from collections.abc import Iterable
from typing import Annotated, Any

from pydantic import Field

from agent_world_model_env.server.generator import PY_TYPES, Table, ToolDef
from openenv.core.errors import InvalidAction
from openenv.core.mcp import tool

MAX_TEXT = 500
MAX_ROWS = 100
DEFAULT_ROWS = 20


def _annotation(kind: str, name: str) -> Any:
    if name == "limit":
        return Annotated[int, Field(ge=1, le=MAX_ROWS, description="At most this many rows")]
    if kind == "str":
        return Annotated[str, Field(max_length=MAX_TEXT)]
    if kind == "int":
        return int
    return Annotated[float, Field(allow_inf_nan=False)]


def make_method(definition: ToolDef) -> Any:
    """A ``@tool`` method for ``definition``: typed keyword arguments, run by ``run_tool``."""

    def call(self: Any, **arguments: Any) -> Any:
        given = {k: v for k, v in arguments.items() if v is not None}
        return self.run_tool(definition.name, given)

    params = [inspect.Parameter("self", inspect.Parameter.POSITIONAL_OR_KEYWORD)]
    annotations: dict[str, Any] = {}
    for name, (kind, required) in definition.arguments.items():
        base = _annotation(kind, name)
        annotation = base if required else base | None
        default = inspect.Parameter.empty if required else None
        params.append(
            inspect.Parameter(
                name, inspect.Parameter.KEYWORD_ONLY, default=default, annotation=annotation
            )
        )
        annotations[name] = annotation
    call.__signature__ = inspect.Signature(params)  # type: ignore[attr-defined]
    call.__annotations__ = annotations
    call.__name__ = call.__qualname__ = f"_tool_{definition.name}"
    call.__doc__ = definition.description
    return tool(call, name=definition.name, description=definition.description)


def tool_mixin(definitions: Iterable[ToolDef]) -> type:
    """A class with one ``@tool`` method per definition (the first definition of a name wins)."""
    methods: dict[str, Any] = {}
    for definition in definitions:
        methods.setdefault(f"_tool_{definition.name}", make_method(definition))
    return type("GeneratedTools", (), methods)


def run(db: sqlite3.Connection, definition: ToolDef, arguments: dict[str, Any]) -> Any:
    """Run one generated tool; a missing row or a bad value raises with a message for the agent."""
    table = definition.table
    if definition.kind == "list":
        limit = int(arguments.pop("limit", DEFAULT_ROWS))
        where = " AND ".join(f"{c} = ?" for c in arguments) or "1"
        cursor = db.execute(
            f"SELECT {table.select} FROM {table.name} WHERE {where} ORDER BY rowid LIMIT ?",
            [*arguments.values(), limit],
        )
        return _rows(cursor)
    row_id = arguments.pop(table.key, None)
    if definition.kind == "create":
        cols = ", ".join(arguments)
        marks = ", ".join("?" for _ in arguments)
        cursor = db.execute(
            f"INSERT INTO {table.name} ({cols}) VALUES ({marks})", list(arguments.values())
        )
        return _one(db, table, int(cursor.lastrowid or 0))
    current = _one(db, table, int(row_id))
    if definition.kind == "get":
        return current
    if definition.kind == "delete":
        db.execute(f"DELETE FROM {table.name} WHERE rowid = ?", [row_id])
        return {"deleted": current}
    if not arguments:
        raise InvalidAction(f"{definition.name}: give at least one column to change")
    sets = ", ".join(f"{c} = ?" for c in arguments)
    db.execute(f"UPDATE {table.name} SET {sets} WHERE rowid = ?", [*arguments.values(), row_id])
    return _one(db, table, int(row_id))


def _rows(cursor: sqlite3.Cursor) -> list[dict[str, Any]]:
    names = [d[0] for d in cursor.description]
    return [dict(zip(names, row, strict=True)) for row in cursor]


def _one(db: sqlite3.Connection, table: Table, row_id: int) -> dict[str, Any]:
    query = f"SELECT {table.select} FROM {table.name} WHERE rowid = ?"
    found = _rows(db.execute(query, [row_id]))
    if not found:
        raise InvalidAction(f"no {table.row} with {table.key} {row_id}")
    return found[0]


__all__ = ["PY_TYPES", "make_method", "run", "tool_mixin"]
