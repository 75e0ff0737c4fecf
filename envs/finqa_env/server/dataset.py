"""FinQA's questions and tables: the synthetic set we ship, and the published set's loader.

Both become one :class:`FinqaData`: companies (``{company: {table_name: Table}}``) and
questions. Which one a server plays:

* default: ``finqa_env/data/synthetic.json``, three fictional companies with invented figures
  and nine questions, written for this project (no real filing);
* ``FINQA_DATA_PATH=<dir>``: the published benchmark already on disk, in its layout
  (``benchmark_questions/finqa.csv``, ``input_companies/tables_cleaned_all_companies.json``);
* ``FINQA_DATASET=<repo id>`` (``snorkelai/finqa-data``): that layout downloaded from the
  Hugging Face Hub with ``huggingface_hub.snapshot_download`` (cached by the Hub library).
"""

from __future__ import annotations

import csv
import json
import os
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any

PUBLISHED_REPO = "snorkelai/finqa-data"
QUESTIONS_CSV = "benchmark_questions/finqa.csv"
TABLES_JSON = "input_companies/tables_cleaned_all_companies.json"
MAX_CELL = 200  # characters kept of one published cell


class DatasetUnavailable(RuntimeError):
    """The requested data set cannot be read or downloaded; the message says what to do."""


@dataclass(frozen=True)
class Table:
    """One 10-K table: its name, a description, column names and rows (cells: str or number)."""

    name: str
    description: str
    columns: list[str]
    rows: list[list[Any]]


@dataclass(frozen=True)
class Question:
    """One question about one company, with its reference answer."""

    id: str
    company: str
    question: str
    answer: str
    explanation: str = ""


@dataclass(frozen=True)
class FinqaData:
    """The companies' tables and the questions; ``source`` says where they came from."""

    companies: dict[str, dict[str, Table]]
    questions: list[Question]
    source: str
    display_names: dict[str, str] = field(default_factory=dict)

    def display_name(self, company: str) -> str:
        return self.display_names.get(company, company)


def load_synthetic() -> FinqaData:
    """The shipped synthetic set (fictional companies, invented figures)."""
    text = resources.files("finqa_env.data").joinpath("synthetic.json").read_text("utf-8")
    doc = json.loads(text)
    companies: dict[str, dict[str, Table]] = {}
    names: dict[str, str] = {}
    for company, spec in doc["companies"].items():
        names[company] = spec["display_name"]
        companies[company] = {
            name: Table(name, t["description"], list(t["columns"]), [list(r) for r in t["rows"]])
            for name, t in spec["tables"].items()
        }
    questions = [Question(**q) for q in doc["questions"]]
    return FinqaData(companies, questions, "synthetic (shipped)", names)


def load_published(root: str | Path) -> FinqaData:
    """The published benchmark's layout under ``root`` (questions CSV + cleaned tables JSON)."""
    root = Path(root)
    questions_path, tables_path = root / QUESTIONS_CSV, root / TABLES_JSON
    for path in (questions_path, tables_path):
        if not path.is_file():
            raise DatasetUnavailable(
                f"{path} is missing: FINQA_DATA_PATH must hold the published layout "
                f"({QUESTIONS_CSV} and {TABLES_JSON}); download it with "
                f"FINQA_DATASET={PUBLISHED_REPO} or `hf download {PUBLISHED_REPO} "
                "--repo-type dataset --local-dir <dir>`"
            )
    companies: dict[str, dict[str, Table]] = {}
    for key, entry in json.loads(tables_path.read_text("utf-8")).items():
        company, _, name = key.partition("/")
        companies.setdefault(company, {})[name] = _published_table(name, entry)
    with questions_path.open(newline="", encoding="utf-8") as handle:
        questions = [_published_question(i, row) for i, row in enumerate(csv.DictReader(handle))]
    questions = [q for q in questions if q.company in companies]
    if not questions:
        raise DatasetUnavailable(f"{questions_path} holds no question about a known company")
    return FinqaData(companies, questions, f"published ({root})")


def download_published(
    repo_id: str = PUBLISHED_REPO, endpoint: str | None = None, cache_dir: str | None = None
) -> Path:
    """Download the published layout from the Hub; return its local folder."""
    from huggingface_hub import snapshot_download

    try:
        folder = snapshot_download(
            repo_id,
            repo_type="dataset",
            allow_patterns=[QUESTIONS_CSV, TABLES_JSON],
            endpoint=endpoint,
            cache_dir=cache_dir,
        )
    except Exception as exc:  # network, auth, missing repo: one clear message for the operator
        reason = " ".join(str(exc).split())[:300]
        raise DatasetUnavailable(
            f"could not download the FinQA data set {repo_id!r} from the Hugging Face Hub "
            f"({type(exc).__name__}: {reason}); check the network and HF_TOKEN, or "
            "unset FINQA_DATASET to play the shipped synthetic questions"
        ) from exc
    return Path(folder)


def load_configured(environ: dict[str, str] | None = None) -> FinqaData:
    """The data set the operator chose with ``FINQA_DATA_PATH`` / ``FINQA_DATASET``."""
    env = os.environ if environ is None else environ
    if env.get("FINQA_DATA_PATH"):
        return load_published(env["FINQA_DATA_PATH"])
    if env.get("FINQA_DATASET"):
        folder = download_published(
            env["FINQA_DATASET"], endpoint=env.get("HF_ENDPOINT"), cache_dir=env.get("HF_HUB_CACHE")
        )
        return load_published(folder)
    return load_synthetic()


def _published_table(name: str, entry: dict[str, Any]) -> Table:
    raw = entry.get("table", "[]")
    data = json.loads(raw) if isinstance(raw, str) else raw
    if isinstance(data, dict):  # pandas' column orientation: {column: {row: value}}
        columns = [str(c) for c in data]
        index = list(next(iter(data.values()), {}) or {})
        rows = [[data[c].get(i) for c in data] for i in index]
    else:  # records: [{column: value}]
        columns = [str(c) for c in (data[0] if data else {})]
        rows = [[record.get(c) for c in columns] for record in data]
    rows = [[_cell(v) for v in row] for row in rows]
    return Table(name, str(entry.get("description", ""))[:2000], columns, rows)


def _cell(value: Any) -> Any:
    if value is None or isinstance(value, int | float):
        return value
    return str(value)[:MAX_CELL]


def _published_question(index: int, row: dict[str, str]) -> Question:
    return Question(
        id=row.get("id") or str(index),
        company=row.get("company", ""),
        question=row.get("user_query") or row.get("question", ""),
        answer=row.get("answer", ""),
        explanation=row.get("explanation", "") or "",
    )
