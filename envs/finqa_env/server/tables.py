"""One company's tables as a read-only, bounded SQLite database (one per session).

Each table lives in an in-memory database of its own, as ``data`` (the name the documented
queries use) with a view under the table's own name. Queries run under four bounds: the
text's length, the documented shape (a filter is required, ``SELECT *`` is refused), an
authorizer that allows reading only (no writes, ``ATTACH``, ``PRAGMA`` or DDL) and a progress
handler that stops a query after :data:`QUERY_SECONDS`; at most :data:`MAX_ROWS` rows return.
"""

from __future__ import annotations

import re
import sqlite3
import time
from typing import Any

from finqa_env.server.dataset import Table
from openenv.core.errors import InvalidAction

MAX_QUERY_CHARS = 2000
MAX_ROWS = 50
QUERY_SECONDS = 1.0
FILTERS = re.compile(
    r"\b(WHERE|HAVING|IN|EXISTS|ANY|SOME|ALL|LIKE|BETWEEN|IS\s+(NOT\s+)?NULL|CASE|FILTER)\b",
    re.IGNORECASE,
)
STAR = re.compile(r"SELECT\s+(DISTINCT\s+)?\*", re.IGNORECASE)
_READ_ONLY = {
    sqlite3.SQLITE_SELECT,
    sqlite3.SQLITE_READ,
    sqlite3.SQLITE_FUNCTION,
    33,
}  # 33: RECURSIVE


class QueryError(RuntimeError):
    """A query SQLite refused or stopped; the message is shown to the agent."""


def _authorize(action: int, *_: Any) -> int:
    return sqlite3.SQLITE_OK if action in _READ_ONLY else sqlite3.SQLITE_DENY


class CompanyTables:
    """The tables of one company; databases are built on first query and closed together."""

    def __init__(self, tables: dict[str, Table]) -> None:
        self.tables = tables
        self._dbs: dict[str, sqlite3.Connection] = {}

    def table(self, name: str) -> Table:
        clean = name.strip().removesuffix(".json").removesuffix(".txt")
        if clean not in self.tables:
            known = ", ".join(sorted(self.tables))
            raise InvalidAction(f"no table {name!r} for this company; its tables: {known}")
        return self.tables[clean]

    def query(self, table_name: str, sql: str) -> dict[str, Any]:
        """Run one read-only query; return ``columns``, ``rows`` and ``truncated``."""
        table = self.table(table_name)
        check_query(sql)
        db = self._db(table)
        deadline = time.monotonic() + QUERY_SECONDS
        db.set_progress_handler(lambda: int(time.monotonic() > deadline), 1000)
        try:
            cursor = db.execute(sql)
            rows = cursor.fetchmany(MAX_ROWS + 1)
        except sqlite3.Error as exc:
            if time.monotonic() > deadline:
                raise QueryError(f"query stopped after {QUERY_SECONDS:g} s") from None
            raise QueryError(f"SQL error: {exc}") from None
        finally:
            db.set_progress_handler(None, 0)
        columns = [d[0] for d in cursor.description or ()]
        return {
            "columns": columns,
            "rows": [list(r) for r in rows[:MAX_ROWS]],
            "truncated": len(rows) > MAX_ROWS,
        }

    def close(self) -> None:
        for db in self._dbs.values():
            db.close()
        self._dbs.clear()

    def _db(self, table: Table) -> sqlite3.Connection:
        if table.name not in self._dbs:
            self._dbs[table.name] = _build(table)
        return self._dbs[table.name]


def check_query(sql: str) -> None:
    """Refuse what the documented tool refuses, before SQLite sees it."""
    if len(sql) > MAX_QUERY_CHARS:
        raise InvalidAction(f"a query is at most {MAX_QUERY_CHARS} characters")
    if STAR.search(sql):
        raise InvalidAction("SELECT * is not allowed: name the columns you need (get_table_info)")
    if not FILTERS.search(sql):
        raise InvalidAction("the query must include a filter (WHERE, HAVING, LIKE, IN, ...)")


def _build(table: Table) -> sqlite3.Connection:
    db = sqlite3.connect(":memory:", check_same_thread=False)
    columns = ", ".join(f'"{_ident(c)}" {_affinity(table, i)}' for i, c in enumerate(table.columns))
    db.execute(f"CREATE TABLE data ({columns})")
    marks = ", ".join("?" for _ in table.columns)
    db.executemany(f"INSERT INTO data VALUES ({marks})", table.rows)
    db.execute(f'CREATE VIEW "{_ident(table.name)}" AS SELECT * FROM data')
    db.commit()
    db.execute("PRAGMA query_only = ON")
    db.set_authorizer(_authorize)
    return db


def _ident(name: str) -> str:
    return name.replace('"', '""')


def _affinity(table: Table, index: int) -> str:
    values = [row[index] for row in table.rows if row[index] is not None]
    numeric = values and all(isinstance(v, int | float) for v in values)
    return "REAL" if numeric else "TEXT"
