"""Tasks from datasets (openenv/core/task_source.py): the rows of a JSONL, JSON or parquet file,
a directory saved by ``datasets`` or a Hub split, bounded, with an error that says what to fix
for each way a source, a row or an index can be wrong; what a visitor may name (shipped files,
the operator's directory, the Hub when allowed) and the reset annotation the form draws."""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
from pathlib import Path
from typing import Annotated

import pytest
from pydantic import Field, TypeAdapter

from openenv.core import Environment
from openenv.core.task_source import (
    TASK_DIR_ENV,
    TASK_HUB_ENV,
    TaskColumns,
    TaskIndex,
    TaskRows,
    TaskSourceError,
    load_task_rows,
    parse_hub_spec,
    pick_task,
    resolve_task_source,
    shipped_task_files,
    task_index_option,
    task_source_option,
)
from openenv.web.forms import reset_fields

ROWS = [{"question": f"q{i}", "answer": str(i)} for i in range(5)]
COLUMNS = TaskColumns({"question": ("question", "prompt"), "answer": ("answer",)})


def write_jsonl(path: Path, rows: list[dict]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


@pytest.fixture
def package(tmp_path: Path) -> Path:
    """An environment package shipping one task file."""
    (tmp_path / "pkg" / "tasks").mkdir(parents=True)
    write_jsonl(tmp_path / "pkg" / "tasks" / "mine.jsonl", ROWS)
    (tmp_path / "secret.jsonl").write_text(json.dumps({"question": "secret", "answer": "x"}))
    return tmp_path / "pkg"


def test_jsonl_json_parquet_and_saved_datasets_give_the_same_rows(tmp_path: Path) -> None:
    import datasets
    import pyarrow as pa
    import pyarrow.parquet as pq

    jsonl = write_jsonl(tmp_path / "t.jsonl", ROWS)
    (tmp_path / "t.json").write_text(json.dumps(ROWS))
    pq.write_table(pa.Table.from_pylist(ROWS), tmp_path / "t.parquet")
    datasets.Dataset.from_list(ROWS).save_to_disk(str(tmp_path / "saved"))
    splits = {"train": ROWS[:2], "test": ROWS}
    datasets.DatasetDict(
        {k: datasets.Dataset.from_list(v) for k, v in splits.items()}
    ).save_to_disk(str(tmp_path / "dict"))
    for source in (jsonl, tmp_path / "t.json", tmp_path / "t.parquet", tmp_path / "saved"):
        assert load_task_rows(source) == ROWS, source
    assert load_task_rows(f"{tmp_path / 'dict'}@test") == ROWS
    assert load_task_rows(f"{tmp_path / 'dict'}@train") == ROWS[:2]
    with pytest.raises(TaskSourceError, match=r"holds the splits train, test: name one as dict@"):
        load_task_rows(tmp_path / "dict")


def test_a_changed_file_is_read_again(tmp_path: Path) -> None:
    path = write_jsonl(tmp_path / "t.jsonl", ROWS)
    assert len(load_task_rows(path)) == 5
    write_jsonl(path, [*ROWS[:2], {"question": "longer row now", "answer": "z"}])
    assert load_task_rows(path)[-1]["question"] == "longer row now"


@pytest.mark.parametrize(
    ("name", "content", "message"),
    [
        ("t.csv", "a,b\n", "task files are .jsonl, .json or .parquet"),
        ("t.jsonl", '{"a": 1}\nnot json\n', "line 2 is not JSON"),
        ("t.jsonl", '{"a": 1}\n[1, 2]\n', "line 2 is not a JSON object"),
        ("t.jsonl", "\n\n", "has no rows"),
        ("t.json", '{"a": 1}', "must hold a JSON list of objects"),
        ("t.json", "[1, 2]", "row 0 of t.json is not an object"),
        ("t.json", "{", "is not valid JSON"),
        ("t.parquet", "not parquet", "is not a parquet file"),
    ],
)
def test_a_wrong_format_says_what_is_wrong(
    tmp_path: Path, name: str, content: str, message: str
) -> None:
    (tmp_path / name).write_text(content)
    with pytest.raises(TaskSourceError, match=message):
        load_task_rows(tmp_path / name)


def test_sources_are_bounded_in_rows_bytes_and_size(tmp_path: Path) -> None:
    import pyarrow as pa
    import pyarrow.parquet as pq

    with pytest.raises(TaskSourceError, match=r"does not exist"):
        load_task_rows(tmp_path / "missing.jsonl")
    path = write_jsonl(tmp_path / "t.jsonl", ROWS)
    with pytest.raises(TaskSourceError, match=r"more than 3 rows"):
        load_task_rows(path, max_rows=3)
    with pytest.raises(TaskSourceError, match=r"line 1 is .* bytes; at most 10"):
        load_task_rows(path, max_row_bytes=10)
    with pytest.raises(TaskSourceError, match=r"bytes; at most 20 are read"):
        load_task_rows(path, max_file_bytes=20)
    pq.write_table(pa.Table.from_pylist(ROWS), tmp_path / "t.parquet")
    with pytest.raises(TaskSourceError, match=r"has 5 rows; at most 3"):
        load_task_rows(tmp_path / "t.parquet", max_rows=3)
    with pytest.raises(TaskSourceError, match=r"row 0 of t.parquet is over 10 bytes"):
        load_task_rows(tmp_path / "t.parquet", max_row_bytes=10)


def test_a_column_mapping_takes_the_first_column_present_and_names_a_missing_one() -> None:
    columns = TaskColumns({"q": ("question", "prompt"), "a": ("answer",)}, defaults={"a": "-"})
    assert columns.apply({"prompt": "p", "answer": "1"}) == {"q": "p", "a": "1"}
    assert columns.apply({"question": "x", "prompt": "p"}) == {"q": "x", "a": "-"}
    with pytest.raises(TaskSourceError, match=r"no column for 'q' \(looked for question, prompt"):
        columns.apply({"text": "t"}, "row 3 of x")


def test_a_visitor_names_shipped_files_and_nothing_else_of_the_server(
    package: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv(TASK_DIR_ENV, raising=False)
    monkeypatch.delenv(TASK_HUB_ENV, raising=False)
    assert shipped_task_files(package) == ("mine.jsonl",)
    assert resolve_task_source("mine.jsonl", package) == package / "tasks" / "mine.jsonl"
    for name in ("../secret.jsonl", str(package.parent / "secret.jsonl"), "/etc/passwd", "x"):
        with pytest.raises(TaskSourceError, match=r"offers: mine.jsonl .an operator can allow"):
            resolve_task_source(name, package)
    with pytest.raises(TaskSourceError, match=r"off on this server .*OPENENV_TASK_HUB=1"):
        resolve_task_source("hf://owner/tasks", package)
    with pytest.raises(TaskSourceError, match=r"1 to 300 characters"):
        resolve_task_source("a" * 301, package)


def test_the_operator_directory_is_the_only_other_place(
    package: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    allowed = tmp_path / "allowed"
    (allowed / "sub").mkdir(parents=True)
    write_jsonl(allowed / "sub" / "more.jsonl", ROWS[:1])
    monkeypatch.setenv(TASK_DIR_ENV, str(allowed))
    assert resolve_task_source("sub/more.jsonl", package) == (allowed / "sub" / "more.jsonl")
    for name in ("../secret.jsonl", str(tmp_path / "secret.jsonl"), "sub/none.jsonl", "."):
        with pytest.raises(TaskSourceError, match=r"or a file under the operator's"):
            resolve_task_source(name, package)
    (allowed / "link.jsonl").symlink_to(tmp_path / "secret.jsonl")
    with pytest.raises(TaskSourceError, match=r"unknown task source"):
        resolve_task_source("link.jsonl", package)


def test_an_index_picks_a_row_and_a_seed_picks_one_repeatably(package: Path) -> None:
    picked = pick_task("mine.jsonl", 3, random.Random(0), COLUMNS, package)
    assert picked is not None and (picked.index, picked.rows) == (3, 5)
    assert picked.task == {"question": "q3", "answer": "3"}
    seeded = [pick_task("mine.jsonl", None, random.Random(7), COLUMNS, package) for _ in range(2)]
    assert seeded[0] == seeded[1]
    assert pick_task(None, None, random.Random(0), COLUMNS, package) is None
    with pytest.raises(TaskSourceError, match=r"task_index 5 is out of range: .* 5 rows \(0 to 4"):
        pick_task("mine.jsonl", 5, random.Random(0), COLUMNS, package)
    with pytest.raises(TaskSourceError, match=r"task_index picks a row of a task_source"):
        pick_task(None, 1, random.Random(0), COLUMNS, package)
    with pytest.raises(TaskSourceError, match=r"row 0 of mine.jsonl has no column for 'level'"):
        pick_task("mine.jsonl", 0, random.Random(0), TaskColumns({"level": ("level",)}), package)


@pytest.mark.parametrize(
    ("source", "parts"),
    [
        ("hf://owner/tasks", ("owner/tasks", None, "train")),
        ("hf://owner/tasks:hard", ("owner/tasks", "hard", "train")),
        ("hf://owner/tasks:hard@test", ("owner/tasks", "hard", "test")),
        ("hf://gsm8k@test[:10]", ("gsm8k", None, "test[:10]")),
    ],
)
def test_hub_names(source: str, parts: tuple) -> None:
    spec = parse_hub_spec(source)
    assert (spec.repo, spec.config, spec.split) == parts


def test_a_malformed_hub_name_shows_the_format() -> None:
    with pytest.raises(TaskSourceError, match=r"hf://owner/name:config@split"):
        parse_hub_spec("hf://owner/../x")


# The reader leaves without the interpreter's teardown: pyarrow's scanner threads can still be
# finishing there and abort the process after the rows are out (apache/arrow#45214; seen once
# in CI on a loaded machine). What is tested is the rows and the errors.
HUB_SCRIPT = """
import json, os, sys
from openenv.core.task_source import TaskSourceError, load_task_rows
try:
    print(json.dumps(load_task_rows(sys.argv[1], max_rows=int(sys.argv[2]))))
except TaskSourceError as exc:
    print(exc)
sys.stdout.flush()
os._exit(0)
"""


def read_hub(source: str, environ: dict[str, str], max_rows: int = 100) -> str:
    """What reading a Hub split gives in a fresh process (the Hub settings are read at import):
    the rows as JSON, or the error."""
    done = subprocess.run(
        [sys.executable, "-c", HUB_SCRIPT, source, str(max_rows)],
        env=environ,
        cwd=environ["HF_HOME"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


def hub_environ(tmp_path: Path, endpoint: str | None = None) -> dict[str, str]:
    environ = {k: v for k, v in os.environ.items() if not k.startswith("HF_")}
    environ["HF_HOME"] = str(tmp_path / "hf")
    (tmp_path / "hf").mkdir(exist_ok=True)
    if endpoint:
        environ["HF_ENDPOINT"] = endpoint
    else:
        environ["HF_HUB_OFFLINE"] = "1"
    return environ


def test_a_hub_split_is_read_from_hf_endpoint_bounded_in_rows(tmp_path: Path) -> None:
    from fake_hub import fake_hub

    splits = {"train": ROWS, "test": ROWS[:2]}
    with fake_hub() as hub:
        hub.add_dataset("owner/tasks", splits)
        environ = hub_environ(tmp_path, hub.url)
        assert json.loads(read_hub("hf://owner/tasks", environ)) == ROWS
        assert json.loads(read_hub("hf://owner/tasks@test", environ)) == ROWS[:2]
        assert json.loads(read_hub("hf://owner/tasks", environ, max_rows=3)) == ROWS[:3]
        missing = read_hub("hf://owner/other:hard@test", environ)
        nosplit = read_hub("hf://owner/tasks@validation", environ)
    assert f"could not read the Hub dataset owner/other:hard@test (from {hub.url})" in missing
    assert "could not read the Hub dataset owner/tasks@validation" in nosplit
    assert "validation" in nosplit.split("):", 1)[1]
    assert any(path.startswith("/datasets/owner/other/") for _, path, _ in hub.calls)
    assert any(path.endswith(".parquet") for _, path, _ in hub.calls)


def test_a_hub_name_that_is_also_a_local_directory_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "owner" / "tasks").mkdir(parents=True)
    monkeypatch.chdir(tmp_path)
    with pytest.raises(TaskSourceError, match=r"a local directory .* has the same name"):
        load_task_rows("hf://owner/tasks")


def test_with_the_hub_offline_reading_a_split_is_a_clear_error(tmp_path: Path) -> None:
    message = read_hub("hf://owner/tasks:hard@test", hub_environ(tmp_path))
    assert "could not read the Hub dataset owner/tasks:hard@test" in message


def test_the_reset_options_draw_a_task_picker(package: Path, monkeypatch) -> None:
    monkeypatch.delenv(TASK_DIR_ENV, raising=False)
    monkeypatch.delenv(TASK_HUB_ENV, raising=False)
    shipped_only = task_source_option(package)
    monkeypatch.setenv(TASK_DIR_ENV, str(package))
    open_names = task_source_option(package)

    class Picky(Environment):
        def reset(self, seed=None, episode_id=None, task_source=None, task_index=None):
            raise NotImplementedError

        reset.__annotations__ = {"task_source": shipped_only, "task_index": TaskIndex}

        def step(self, action):
            raise NotImplementedError

        @property
        def state(self):
            raise NotImplementedError

    source, index = reset_fields(Picky)
    assert (source.kind, source.choices) == ("enum", ("mine.jsonl",))
    assert (index.kind, index.minimum, index.maximum) == ("int", 0, 9999)
    typed = TypeAdapter(Annotated[open_names, "x"]).json_schema()
    assert typed["examples"] == ["mine.jsonl"] and typed["anyOf"][0]["maxLength"] == 300


def test_the_row_number_is_bounded_by_the_shipped_rows_unless_more_can_be_named(
    package: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv(TASK_DIR_ENV, raising=False)
    monkeypatch.delenv(TASK_HUB_ENV, raising=False)
    write_jsonl(package / "tasks" / "more.jsonl", ROWS * 2)
    bounded = TypeAdapter(task_index_option(package)).json_schema()["anyOf"][0]
    assert (bounded["minimum"], bounded["maximum"]) == (0, 9)
    monkeypatch.setenv(TASK_HUB_ENV, "1")
    assert TypeAdapter(task_index_option(package)).json_schema()["anyOf"][0]["maximum"] == 9999


def test_an_environments_task_rows_pick_a_row_and_refuse_the_options_it_replaces(
    package: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv(TASK_DIR_ENV, raising=False)
    monkeypatch.delenv(TASK_HUB_ENV, raising=False)
    rows = TaskRows(package, COLUMNS)
    source, index = rows.options()
    assert TypeAdapter(source).validate_python("mine.jsonl") == "mine.jsonl"
    assert TypeAdapter(index).json_schema()["anyOf"][0]["maximum"] == 4
    picked = rows.pick("mine.jsonl", 2, random.Random(0), "question", level=0, words=None)
    assert picked is not None and picked.task == {"question": "q2", "answer": "2"}
    assert rows.pick(None, None, random.Random(0), level=3) is None
    with pytest.raises(TaskSourceError, match=r"gives the question: leave level, words out"):
        rows.pick("mine.jsonl", 2, random.Random(0), "question", level=3, words=["a"])
    with pytest.raises(TaskSourceError, match=r"^row 2 of mine.jsonl: String should have at most"):
        picked.valid(TypeAdapter(Annotated[str, Field(max_length=1)]), picked.task["question"])
    assert str(picked.error("no good")) == "row 2 of mine.jsonl: no good"


def test_task_index_0_is_row_0_and_the_caller_says_what_counts_as_given(
    package: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Row 0 is picked by ``task_index=0`` whatever the seed, and named without a source it is
    refused; a replaced option counts as given when truthy (the form's defaults go with a
    source), and a caller for whom 0 is a choice of its own passes ``is not None``."""
    monkeypatch.delenv(TASK_DIR_ENV, raising=False)
    monkeypatch.delenv(TASK_HUB_ENV, raising=False)
    rows = TaskRows(package, COLUMNS)
    for seed in range(8):
        picked = rows.pick("mine.jsonl", 0, random.Random(seed))
        assert picked is not None and (picked.index, picked.task["question"]) == (0, "q0")
    with pytest.raises(TaskSourceError, match=r"task_index picks a row of a task_source"):
        rows.pick(None, 0, random.Random(0))
    defaults = {"level": 0, "words": [], "hint": "", "strict": False, "mode": None}
    assert rows.pick("mine.jsonl", 1, random.Random(0), **defaults) is not None
    level: int | None = 0
    with pytest.raises(TaskSourceError, match=r"gives the task: leave level out"):
        rows.pick("mine.jsonl", 1, random.Random(0), level=level is not None)
