"""A market read from the CSV the server's operator names in ``$FINRL_DATA_CSV``.

The path comes from the server's environment only, never from a visitor or an agent. The file
is FinRL's long format, one row per (date, ticker): columns ``date``, ``tic``, ``close``
(required), ``high`` and ``low`` (optional; CCI and DX use the close without them), and
optionally indicator columns named as FinRL names them (``macd``, ``rsi_30``, ...), used as
they are instead of being computed. Other columns (``open``, ``volume``, ``day``,
``turbulence``...) are ignored. Dates are ISO (``2020-01-02``, a time may follow); every date
must have a row for every ticker.

Reading is bounded (file size, rows, columns, tickers, dates, cell length) and every problem is a
:class:`CsvError` naming the line and what to fix. The file is read once per process and kept
while its size and modification time do not change.
"""

from __future__ import annotations

import csv
import datetime as dt
import functools
import io
import math
import os
from pathlib import Path

import numpy as np

from finrl_env.server.indicators import INDICATORS
from finrl_env.server.market import MAX_TICKERS, Market

ENV_VAR = "FINRL_DATA_CSV"
MAX_BYTES = 32 * 2**20
MAX_ROWS = 200_000
MAX_COLUMNS = 64
MAX_DATES = 20_000
MAX_CELL = 64  # characters of one cell
REQUIRED = ("date", "tic", "close")
Cells = dict[tuple[str, str], dict[str, float]]  # (date key, tic) -> column -> number


class CsvError(ValueError):
    """The CSV cannot be used; the message says where and why."""


def configured_path() -> str | None:
    """``$FINRL_DATA_CSV``, or None when the operator set none."""
    return os.environ.get(ENV_VAR, "").strip() or None


def load(path: str) -> Market:
    """The market in the CSV at ``path`` (cached while the file is unchanged)."""
    try:
        info = os.stat(path)
    except OSError as exc:
        raise CsvError(f"cannot open it ({exc.strerror})") from None
    if info.st_size > MAX_BYTES:
        raise CsvError(f"it is {info.st_size} bytes; at most {MAX_BYTES} are read")
    return _load(path, info.st_size, info.st_mtime_ns)


@functools.lru_cache(maxsize=4)
def _load(path: str, size: int, mtime_ns: int) -> Market:
    try:
        text = Path(path).read_bytes()[:MAX_BYTES].decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise CsvError(f"it is not UTF-8 text (byte {exc.start})") from None
    except OSError as exc:
        raise CsvError(f"cannot read it ({exc.strerror})") from None
    return parse(text)


def parse(text: str) -> Market:
    """The market in CSV ``text`` (see the module docstring for the format)."""
    reader = csv.reader(io.StringIO(text, newline=""))
    header = _header(next(reader, None))
    cells: Cells = {}
    dates: dict[str, str] = {}  # sortable ISO key -> the date as shown
    columns = {name: i for i, name in enumerate(header)}
    wanted = [c for c in ("close", "high", "low", *INDICATORS) if c in columns]
    try:
        for line, row in enumerate(reader, start=2):
            if not any(cell.strip() for cell in row):
                continue
            if len(cells) >= MAX_ROWS:
                raise CsvError(f"more than {MAX_ROWS} rows")
            _row(line, row, header, columns, wanted, cells, dates)
    except csv.Error as exc:
        raise CsvError(f"line {reader.line_num}: {exc}") from None
    return _market(cells, dates, wanted)


def _header(row: list[str] | None) -> list[str]:
    if not row:
        raise CsvError("it is empty; the first line names the columns (date,tic,close,...)")
    if len(row) > MAX_COLUMNS:
        raise CsvError(f"it has {len(row)} columns; at most {MAX_COLUMNS}")
    header = [name.strip().lower()[:MAX_CELL] for name in row]
    missing = [name for name in REQUIRED if name not in header]
    if missing:
        raise CsvError(f"line 1: no {', '.join(missing)} column (found: {', '.join(header)})")
    return header


def _row(
    line: int,
    row: list[str],
    header: list[str],
    columns: dict[str, int],
    wanted: list[str],
    cells: Cells,
    dates: dict[str, str],
) -> None:
    """Check one data row and add its numbers to ``cells`` (and its date to ``dates``)."""
    if len(row) != len(header):
        raise CsvError(f"line {line}: {len(row)} cells, the header has {len(header)}")
    if any(len(cell) > MAX_CELL for cell in row):
        raise CsvError(f"line {line}: a cell is longer than {MAX_CELL} characters")
    tic = row[columns["tic"]].strip()
    if not tic or not tic.isprintable():
        raise CsvError(f"line {line}: the tic (ticker) is empty or not printable")
    key, shown = _date(line, row[columns["date"]])
    if (key, tic) in cells:
        raise CsvError(f"line {line}: a second row for {tic} on {shown}")
    dates.setdefault(key, shown)
    cells[(key, tic)] = {name: _number(line, name, row[columns[name]]) for name in wanted}


def _date(line: int, raw: str) -> tuple[str, str]:
    try:
        when = dt.datetime.fromisoformat(raw.strip())
    except ValueError:
        raise CsvError(f"line {line}: date {raw.strip()!r} is not ISO (YYYY-MM-DD)") from None
    midnight = when.time() == dt.time()
    shown = when.date().isoformat() if midnight else when.isoformat(" ", "minutes")
    return when.isoformat(), shown


def _number(line: int, column: str, raw: str) -> float:
    try:
        value = float(raw)
    except ValueError:
        raise CsvError(f"line {line}: {column} {raw.strip()!r} is not a number") from None
    if not math.isfinite(value):
        raise CsvError(f"line {line}: {column} is {raw.strip()}; give a finite number")
    if column in ("close", "high", "low") and value <= 0:
        raise CsvError(f"line {line}: {column} {raw.strip()} must be above 0")
    return value


def _market(cells: Cells, dates: dict[str, str], wanted: list[str]) -> Market:
    if not cells:
        raise CsvError("it has a header but no rows")
    keys = sorted(dates)
    tickers = sorted({tic for _, tic in cells})
    if len(tickers) > MAX_TICKERS:
        raise CsvError(f"it has {len(tickers)} tickers; at most {MAX_TICKERS}")
    if len(keys) > MAX_DATES:
        raise CsvError(f"it has {len(keys)} dates; at most {MAX_DATES}")
    if len(keys) < 2:
        raise CsvError("it has one date; an episode needs at least two")
    for key in keys:
        for tic in tickers:
            if (key, tic) not in cells:
                raise CsvError(f"no row for {tic} on {dates[key]}; every date needs every tic")
    table = {
        name: np.array([[cells[(k, t)][name] for t in tickers] for k in keys]) for name in wanted
    }
    close = table.pop("close")
    high, low = table.pop("high", close), table.pop("low", close)
    return Market(tuple(tickers), tuple(dates[k] for k in keys), close, high, low, table)
