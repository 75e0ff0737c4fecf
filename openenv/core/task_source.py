"""Tasks from datasets: one mechanism for every environment whose reset takes a task.

An environment that takes tasks accepts two reset options, ``task_source`` (which task file or
dataset) and ``task_index`` (which row of it; none: the seed picks one), and declares how a row
maps onto its task with a :class:`TaskColumns` (for each task field, the columns that may hold
it). Sources:

* a local ``.jsonl`` (one JSON object a line), ``.json`` (a list of objects) or ``.parquet``
  file, or a directory written by ``datasets``' ``save_to_disk`` (``DIR@split`` picks the split
  of a saved ``DatasetDict``);
* a Hugging Face Hub dataset, ``hf://owner/name[:config][@split]`` (split ``train`` when none),
  read through ``datasets.load_dataset(..., streaming=True)`` (``HF_ENDPOINT`` is honoured): the
  first :data:`MAX_TASK_ROWS` rows are taken.

Everything is bounded (rows, bytes of a row, bytes of a file) and each failure is a
:class:`TaskSourceError` (an :class:`InvalidAction`) that says what to fix.

What a *visitor* or agent may name is narrower (:func:`resolve_task_source`): the task files an
environment ships (``tasks/`` in its package) by file name; files under the directory an operator
sets in ``OPENENV_TASK_DIR``; Hub datasets only when the operator sets ``OPENENV_TASK_HUB=1``.
Never another path of the server. :func:`task_source_option` gives the reset annotation, so the
playground's form draws the picker by itself: a drop-down of the shipped files (an open one, where
a name may be typed, when the operator allows more) and a bounded row number.

An environment wires all of it with one :class:`TaskRows` (its package directory and columns):
``TaskRows.options()`` gives both reset annotations, ``TaskRows.pick`` the row (refusing, by
name, the reset options a row replaces), and :class:`PickedTask` checks a row's values against
the reset options' own types with errors that name the row.
"""

from __future__ import annotations

import copy
import itertools
import json
import os
import random
import re
import threading
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Annotated, Any, Literal, TypeVar

from pydantic import Field, TypeAdapter, ValidationError

from openenv.core.errors import InvalidAction

MAX_TASK_ROWS = 10_000
MAX_ROW_BYTES = 64 * 1024
MAX_FILE_BYTES = 32 * 1024 * 1024
MAX_NAME_CHARS = 300
TASK_DIR_ENV = "OPENENV_TASK_DIR"
TASK_HUB_ENV = "OPENENV_TASK_HUB"
HUB_PREFIX = "hf://"
SHIPPED_DIR = "tasks"  # under an environment's package
SUFFIXES = (".jsonl", ".json", ".parquet")
_CACHE_SIZE = 16
_HUB_SPEC = re.compile(
    r"^hf://(?P<repo>[A-Za-z0-9][\w.-]*(?:/[A-Za-z0-9][\w.-]*)?)"
    r"(?::(?P<config>[\w.-]+))?(?:@(?P<split>[\w.\[\]:%-]+))?$"
)

Row = dict[str, Any]
T = TypeVar("T")


class TaskSourceError(InvalidAction):
    """A task source that cannot be read, or a row or index that does not fit."""


@dataclass(frozen=True)
class HubSpec:
    """A Hub dataset split: ``hf://owner/name[:config][@split]``."""

    repo: str
    config: str | None = None
    split: str = "train"


def parse_hub_spec(source: str) -> HubSpec:
    """The parts of ``hf://owner/name[:config][@split]``; a TaskSourceError says the format."""
    match = _HUB_SPEC.match(source)
    if match is None:
        raise TaskSourceError(
            f"{source!r} is not a Hub dataset name: write hf://owner/name, "
            "hf://owner/name:config or hf://owner/name:config@split"
        )
    return HubSpec(match["repo"], match["config"], match["split"] or "train")


# -- reading a source (trusted: a path or Hub name the program itself chose) -----------------


def load_task_rows(
    source: str | Path,
    *,
    max_rows: int = MAX_TASK_ROWS,
    max_row_bytes: int = MAX_ROW_BYTES,
    max_file_bytes: int = MAX_FILE_BYTES,
) -> list[Row]:
    """The rows of a task file, a saved dataset directory or a Hub split, as JSON-ready dicts.

    A local source with more than ``max_rows`` rows, a file over ``max_file_bytes`` or a row
    over ``max_row_bytes`` (as JSON) is refused; a Hub split gives its first ``max_rows`` rows.
    Reads are cached by path, size and modification time (Hub splits by name)."""
    text = str(source)
    if text.startswith(HUB_PREFIX):
        key: tuple[Any, ...] = (text, max_rows, max_row_bytes)
        return _cached(key, lambda: _hub_rows(parse_hub_spec(text), max_rows, max_row_bytes))
    path, split = _split_suffix(Path(source))
    if not path.exists():
        raise TaskSourceError(f"task source {str(path)!r} does not exist")
    size = _size(path)
    if size > max_file_bytes:
        raise TaskSourceError(
            f"task source {path.name!r} is {size} bytes; at most {max_file_bytes} are read"
        )
    key = (str(path.resolve()), split, size, path.stat().st_mtime_ns, max_rows, max_row_bytes)
    return _cached(key, lambda: _local_rows(path, split, max_rows, max_row_bytes))


def _split_suffix(path: Path) -> tuple[Path, str | None]:
    """``DIR@split`` names a split of a saved DatasetDict (when ``DIR@split`` itself is absent)."""
    name = str(path)
    if not path.exists() and "@" in path.name:
        base, _, split = name.rpartition("@")
        if Path(base).is_dir():
            return Path(base), split
    return path, None


def _size(path: Path) -> int:
    if path.is_dir():
        return sum(p.stat().st_size for p in path.rglob("*") if p.is_file())
    return path.stat().st_size


def _local_rows(path: Path, split: str | None, max_rows: int, max_row_bytes: int) -> list[Row]:
    name = path.name
    if path.is_dir():
        return _rows(_saved_dataset(path, split), name, max_rows, max_row_bytes, strict=True)
    suffix = path.suffix.lower()
    if suffix == ".jsonl":
        return _jsonl_rows(path, max_rows, max_row_bytes)
    if suffix == ".json":
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (UnicodeDecodeError, json.JSONDecodeError) as exc:
            raise TaskSourceError(f"{name} is not valid JSON: {exc}") from None
        if not isinstance(data, list):
            raise TaskSourceError(f"{name} must hold a JSON list of objects (one per task)")
        return _rows(data, name, max_rows, max_row_bytes, strict=True)
    if suffix == ".parquet":
        return _parquet_rows(path, max_rows, max_row_bytes)
    raise TaskSourceError(
        f"{name}: task files are .jsonl, .json or .parquet, or a directory saved by datasets"
    )


def _jsonl_rows(path: Path, max_rows: int, max_row_bytes: int) -> list[Row]:
    rows: list[Row] = []
    with path.open("rb") as handle:
        for number, raw in enumerate(handle, 1):
            if len(raw) > max_row_bytes:
                raise TaskSourceError(
                    f"{path.name} line {number} is {len(raw)} bytes; at most {max_row_bytes}"
                )
            if not raw.strip():
                continue
            try:
                row = json.loads(raw)
            except (UnicodeDecodeError, json.JSONDecodeError) as exc:
                raise TaskSourceError(f"{path.name} line {number} is not JSON: {exc}") from None
            if not isinstance(row, dict):
                raise TaskSourceError(f"{path.name} line {number} is not a JSON object")
            rows.append(row)
            if len(rows) > max_rows:
                raise TaskSourceError(f"{path.name} has more than {max_rows} rows")
    return _rows(rows, path.name, max_rows, max_row_bytes, strict=True)


def _parquet_rows(path: Path, max_rows: int, max_row_bytes: int) -> list[Row]:
    try:
        import pyarrow.parquet as pq

        parquet = pq.ParquetFile(path)
    except ImportError:
        raise TaskSourceError("reading .parquet task files needs pyarrow installed") from None
    except Exception as exc:  # pyarrow's errors for a file that is not parquet vary
        raise TaskSourceError(f"{path.name} is not a parquet file: {exc}") from None
    count = parquet.metadata.num_rows
    if count > max_rows:
        raise TaskSourceError(f"{path.name} has {count} rows; at most {max_rows} are read")
    return _rows(parquet.read().to_pylist(), path.name, max_rows, max_row_bytes, strict=True)


def _saved_dataset(path: Path, split: str | None) -> Iterable[Row]:
    try:
        import datasets
    except ImportError:
        raise TaskSourceError("reading a saved dataset needs the datasets package") from None
    try:
        data = datasets.load_from_disk(str(path))
    except Exception as exc:  # not a save_to_disk directory
        raise TaskSourceError(f"{path.name} is not a directory saved by datasets: {exc}") from None
    if isinstance(data, datasets.DatasetDict):
        if split is None or split not in data:
            raise TaskSourceError(
                f"{path.name} holds the splits {', '.join(data)}: name one as {path.name}@SPLIT"
            )
        data = data[split]
    return data


def _hub_rows(spec: HubSpec, max_rows: int, max_row_bytes: int) -> list[Row]:
    try:
        import datasets
    except ImportError:
        raise TaskSourceError("Hub task sources need the datasets package") from None
    where = f"{spec.repo}{':' + spec.config if spec.config else ''}@{spec.split}"
    if Path(spec.repo).exists():  # datasets would read the local directory instead
        raise TaskSourceError(
            f"a local directory {spec.repo!r} has the same name as the Hub dataset {where}; "
            "run the server from another directory"
        )
    try:
        stream = datasets.load_dataset(spec.repo, spec.config, split=spec.split, streaming=True)
        rows = _first_rows(stream, max_rows)
    except Exception as exc:  # offline, unknown repo, no such config or split: say which
        reason = " ".join(str(exc).split())[:300]
        raise TaskSourceError(
            f"could not read the Hub dataset {where} "
            f"(from {os.environ.get('HF_ENDPOINT', 'https://huggingface.co')}): "
            f"{type(exc).__name__}: {reason}"
        ) from None
    return _rows(rows, where, max_rows, max_row_bytes, strict=False)


def _first_rows(stream: Iterable[Any], max_rows: int) -> list[Any]:
    """The first ``max_rows`` rows of a streamed dataset, its reader closed before returning: a
    partly read parquet scanner left for the interpreter's exit can abort the process there
    (huggingface/datasets#7879). Closing it is enough; collecting garbage right after makes the
    abort likelier, not rarer (measured with pyarrow 26)."""
    rows = iter(stream)
    try:
        return list(itertools.islice(rows, max_rows))
    finally:
        close = getattr(rows, "close", None)
        if close is not None:
            close()


def _rows(
    rows: Iterable[Any], name: str, max_rows: int, max_row_bytes: int, *, strict: bool
) -> list[Row]:
    out: list[Row] = []
    for number, row in enumerate(rows):
        if number >= max_rows:
            if strict:
                raise TaskSourceError(f"{name} has more than {max_rows} rows")
            break
        if not isinstance(row, Mapping):
            raise TaskSourceError(f"row {number} of {name} is not an object")
        text = json.dumps(dict(row), default=str, ensure_ascii=False)
        if len(text.encode()) > max_row_bytes:
            raise TaskSourceError(
                f"row {number} of {name} is over {max_row_bytes} bytes of JSON; "
                "tasks are kept small"
            )
        out.append(json.loads(text))
    if not out:
        raise TaskSourceError(f"{name} has no rows")
    return out


_cache: dict[tuple[Any, ...], list[Row]] = {}
_cache_lock = threading.Lock()


def _cached(key: tuple[Any, ...], load: Any) -> list[Row]:
    with _cache_lock:
        if key in _cache:
            return _cache[key]
    rows = load()
    with _cache_lock:
        while len(_cache) >= _CACHE_SIZE:
            _cache.pop(next(iter(_cache)))
        _cache[key] = rows
    return rows


# -- what a visitor may name --------------------------------------------------------------


def shipped_task_files(package_dir: str | Path) -> tuple[str, ...]:
    """The task files an environment ships: ``tasks/*.jsonl|json|parquet`` in its package."""
    folder = Path(package_dir) / SHIPPED_DIR
    if not folder.is_dir():
        return ()
    return tuple(sorted(p.name for p in folder.iterdir() if p.suffix.lower() in SUFFIXES))


def operator_task_dir() -> Path | None:
    """The directory an operator lets visitors name task files under (``OPENENV_TASK_DIR``)."""
    value = os.environ.get(TASK_DIR_ENV, "").strip()
    return Path(value).resolve() if value else None


def hub_allowed() -> bool:
    """Whether the operator lets visitors name Hub datasets (``OPENENV_TASK_HUB=1``)."""
    return os.environ.get(TASK_HUB_ENV, "").strip().lower() in ("1", "true", "yes", "on")


def resolve_task_source(name: str, package_dir: str | Path) -> str | Path:
    """Where a task source named by a visitor or agent is read from: a shipped file by name, a
    file under the operator's directory, or a Hub dataset when the operator allows them; any
    other name is a TaskSourceError listing what this server offers."""
    name = name.strip()
    shipped = shipped_task_files(package_dir)
    if not name or len(name) > MAX_NAME_CHARS:
        raise TaskSourceError(f"task_source must be 1 to {MAX_NAME_CHARS} characters")
    if name in shipped:
        return Path(package_dir) / SHIPPED_DIR / name
    if name.startswith(HUB_PREFIX):
        parse_hub_spec(name)
        if not hub_allowed():
            raise TaskSourceError(
                "Hub datasets as task sources are off on this server "
                f"(its operator turns them on with {TASK_HUB_ENV}=1)"
            )
        return name
    root = operator_task_dir()
    if root is not None:
        base, _, split = name.rpartition("@") if "@" in name else (name, "", "")
        candidate = (root / base).resolve()
        if candidate != root and candidate.is_relative_to(root) and candidate.exists():
            return f"{candidate}@{split}" if split else candidate
    offered = ", ".join(shipped) or "none"
    more = (
        f" or a file under the operator's {TASK_DIR_ENV}"
        if root is not None
        else f" (an operator can allow more with {TASK_DIR_ENV})"
    )
    raise TaskSourceError(f"unknown task source {name!r}; this server offers: {offered}{more}")


def task_source_option(package_dir: str | Path) -> Any:
    """The annotation of a ``task_source`` reset option: the shipped files as a drop-down, or
    (when the operator allows more names) text with the shipped files as suggestions. Read
    when the environment's module is imported, so the operator's settings are those of the
    server's start."""
    shipped = shipped_task_files(package_dir)
    describe = "a task file (its rows are tasks); none: the environment's own tasks"
    if shipped and operator_task_dir() is None and not hub_allowed():
        choice: Any = Literal[shipped]
        return Annotated[choice | None, Field(description=describe)]
    return Annotated[
        str | None,
        Field(
            max_length=MAX_NAME_CHARS,
            examples=list(shipped),
            description=f"{describe}; a file under the operator's directory or hf://owner/name",
        ),
    ]


def _index_option(last: int) -> Any:
    description = "the row of task_source to play (from 0); none: the seed picks one"
    return Annotated[int, Field(ge=0, le=last, description=description)] | None


TaskIndex = _index_option(MAX_TASK_ROWS - 1)


def task_index_option(package_dir: str | Path) -> Any:
    """The annotation of a ``task_index`` reset option: a row number bounded by the rows of the
    largest shipped task file when only those can be named (the form shows that bound; each
    file's own count is checked at reset), else by :data:`MAX_TASK_ROWS`."""
    shipped = shipped_task_files(package_dir)
    if not shipped or operator_task_dir() is not None or hub_allowed():
        return TaskIndex
    try:
        rows = max(len(load_task_rows(Path(package_dir) / SHIPPED_DIR / n)) for n in shipped)
    except TaskSourceError:  # a broken shipped file is reported when it is picked
        return TaskIndex
    return _index_option(rows - 1)


# -- from a row to a task ------------------------------------------------------------------


@dataclass(frozen=True)
class TaskColumns:
    """How a row maps onto an environment's task: for each task field, the columns that may
    hold it (the first present wins), and the fields that may be missing with their defaults."""

    fields: Mapping[str, tuple[str, ...]]
    defaults: Mapping[str, Any] = field(default_factory=dict)

    def apply(self, row: Mapping[str, Any], where: str = "the row") -> dict[str, Any]:
        """The task's fields read from ``row``; a TaskSourceError names a missing column."""
        task: dict[str, Any] = {}
        for name, columns in self.fields.items():
            found = next((c for c in columns if row.get(c) is not None), None)
            if found is not None:
                task[name] = row[found]
            elif name in self.defaults:
                task[name] = self.defaults[name]
            else:
                have = ", ".join(list(row)[:20]) or "none"
                raise TaskSourceError(
                    f"{where} has no column for {name!r} (looked for {', '.join(columns)}); "
                    f"its columns: {have}"
                )
        return task


@dataclass(frozen=True)
class PickedTask:
    """A row chosen from a task source, mapped onto the environment's task."""

    source: str
    index: int
    rows: int
    task: dict[str, Any]
    row: Row

    @property
    def where(self) -> str:
        """Which row this is, for messages: ``row 3 of tasks.jsonl``."""
        return f"row {self.index} of {self.source}"

    def error(self, problem: str) -> TaskSourceError:
        """A TaskSourceError about this row: ``row 3 of tasks.jsonl: <problem>``."""
        return TaskSourceError(f"{self.where}: {problem}")

    def valid(self, adapter: TypeAdapter[T], value: Any) -> T:
        """``value`` of this row held to ``adapter`` (the type of the reset option it stands
        for, with its bounds); a TaskSourceError names the row and what is wrong."""
        try:
            return adapter.validate_python(value)
        except ValidationError as exc:
            problem = exc.errors()[0]
            at = ".".join(map(str, problem["loc"])) or "the value"
            raise self.error(f"{problem['msg']} (at {at})") from None


def pick_task(
    source: str | None,
    index: int | None,
    rng: random.Random,
    columns: TaskColumns,
    package_dir: str | Path,
) -> PickedTask | None:
    """The task at ``index`` of the source a visitor named (none: ``rng`` picks a row, so a
    seeded reset is repeatable), mapped by ``columns``; None without a source."""
    if source is None:
        if index is not None:
            raise TaskSourceError("task_index picks a row of a task_source: name one too")
        return None
    rows = load_task_rows(resolve_task_source(source, package_dir))
    if index is None:
        index = rng.randrange(len(rows))
    elif not 0 <= index < len(rows):
        raise TaskSourceError(
            f"task_index {index} is out of range: {source} has {len(rows)} rows "
            f"(0 to {len(rows) - 1})"
        )
    row = copy.deepcopy(rows[index])  # the cached rows stay as read, whatever a task does
    task = columns.apply(row, f"row {index} of {source}")
    return PickedTask(source=source, index=index, rows=len(rows), task=task, row=row)


@dataclass(frozen=True)
class TaskRows:
    """The task-source wiring of one environment: where its shipped task files are
    (``package_dir/tasks``) and how a row maps onto its task. In the environment's module::

        TASK_ROWS = TaskRows(PACKAGE_DIR, TaskColumns({...}))
        TaskSource, TaskRow = TASK_ROWS.options()

    then ``reset(..., task_source: TaskSource = None, task_index: TaskRow = None)`` calls
    ``TASK_ROWS.pick(task_source, task_index, self.rng, "question", difficulty=difficulty)``."""

    package_dir: Path
    columns: TaskColumns

    def options(self) -> tuple[Any, Any]:
        """The annotations of the ``task_source`` and ``task_index`` reset options (read when
        called: the operator's settings at the server's start)."""
        return task_source_option(self.package_dir), task_index_option(self.package_dir)

    def pick(
        self,
        source: str | None,
        index: int | None,
        rng: random.Random,
        gives: str = "task",
        **others: Any,
    ) -> PickedTask | None:
        """The row ``source`` and ``index`` name (:func:`pick_task`; ``index`` 0 is row 0);
        ``others`` are the reset options a row replaces (what the row ``gives``): one given
        beside a source is refused, by name.

        An option counts as given when its value is truthy, so that the defaults the
        playground's form sends as they stand (``None``, ``0``, ``""``, ``False``, ``[]``) go
        with a source. Pass what "given" means for the others: ``level=level is not None``
        where 0 is a choice of its own, ``task=task != DEFAULT_TASK`` for a default that is
        not empty."""
        picked = pick_task(source, index, rng, self.columns, self.package_dir)
        given = [name for name, value in others.items() if value]
        if picked is not None and given:
            raise TaskSourceError(
                f"a task_source gives the {gives}: leave {', '.join(given)} out "
                "(or clear task_source)"
            )
        return picked
