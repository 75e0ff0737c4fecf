"""The FinQA env over the wire: a scripted analyst answers every shipped question from the
tables (SQL, then the calculator) and scores 1.0; the same seed replays the same episode; bad
tools, arguments and queries are refused with a clear error and the episode goes on; the
published set's loader reads its layout, downloads it through huggingface_hub from a Hub
stand-in on loopback (and plays it), and fails clearly when no Hub answers."""

from __future__ import annotations

import csv
import hashlib
import json
import socket
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
from finqa_env import CallToolAction, FinQAEnv
from finqa_env.server.calculator import CalculatorError, calculate
from finqa_env.server.dataset import (
    DatasetUnavailable,
    download_published,
    load_configured,
    load_published,
    load_synthetic,
)
from finqa_env.server.environment import FinQAEnvironment
from finqa_env.server.rewards import score
from finqa_env.server.tables import MAX_ROWS, CompanyTables

from openenv.core import Svg
from openenv.core.errors import ToolCallError
from openenv.testing import check_task_source
from tests.conftest import env_fixtures

url, env = env_fixtures("finqa_env.server.app:app", FinQAEnv)

INCOME = "us_gaap_ScheduleOfIncomeBeforeIncomeTaxDomesticAndForeignTableTextBlock"
REVENUE = "us_gaap_DisaggregationOfRevenueTableTextBlock"
EPS = "us_gaap_ScheduleOfEarningsPerShareBasicAndDilutedTableTextBlock"
LEASES = "us_gaap_LeaseCostTableTextBlock"
DEBT = "us_gaap_ScheduleOfMaturitiesOfLongTermDebtTableTextBlock"
CASH = "us_gaap_ScheduleOfCashFlowSupplementalDisclosuresTableTextBlock"
TAX = "us_gaap_ScheduleOfEffectiveIncomeTaxRateReconciliationTableTextBlock"
INVENTORY = "us_gaap_ScheduleOfInventoryCurrentTableTextBlock"
GEO = "us_gaap_RevenueFromExternalCustomersByGeographicAreasTableTextBlock"

# question id -> (table, query, expression over the rows returned). Written from the tables,
# the way an analyst would: the answers come out of the SQL and the calculator.
SOLUTIONS = {
    "syn-01": (INCOME, "SELECT foreign_operations, total FROM data WHERE year = '2023'",
               lambda r: f"{r[0][0]} / {r[0][1]} * 100"),
    "syn-02": (REVENUE, "SELECT revenue FROM data WHERE segment = 'Services' ORDER BY year",
               lambda r: f"({r[1][0]} - {r[0][0]}) / {r[0][0]} * 100"),
    "syn-03": (EPS, "SELECT net_income, diluted_shares FROM data WHERE year = '2023'",
               lambda r: f"{r[0][0]} / {r[0][1]}"),
    "syn-04": (LEASES, "SELECT line_item, amount FROM data WHERE year = '2023' AND "
               "(line_item LIKE 'Finance%' OR line_item LIKE 'Total%') ORDER BY line_item",
               lambda r: f"({r[0][1]} + {r[1][1]}) / {r[2][1]} * 100"),
    "syn-05": (DEBT, "SELECT sum(principal) FROM data WHERE year IN ('2024', '2025', '2026')",
               lambda r: f"{r[0][0]}"),
    "syn-06": (CASH, "SELECT cash_paid_interest FROM data WHERE year IN ('2022', '2023') "
               "ORDER BY year", lambda r: f"{r[1][0]} - {r[0][0]}"),
    "syn-07": (TAX, "SELECT rate_pct FROM data WHERE item LIKE 'State%' ORDER BY year",
               lambda r: f"{r[1][0]} - {r[0][0]}"),
    "syn-08": (INVENTORY, "SELECT finished_goods, total FROM data WHERE year = '2023'",
               lambda r: f"{r[0][0]} / {r[0][1]} * 100"),
    "syn-09": (GEO, "SELECT revenue FROM data WHERE year = '2023' AND region <> 'United States'",
               lambda r: " + ".join(str(row[0]) for row in r)),
}  # fmt: skip


def call(env, name: str, **arguments):
    return env.step(CallToolAction(tool_name=name, arguments=arguments))


def solve(env, question_id: str) -> list[float]:
    """Play one question the analyst's way; return the rewards of its steps."""
    first = env.reset(question_id=question_id)
    company = first.observation.company
    table, query, expression = SOLUTIONS[question_id]
    steps = [call(env, "get_descriptions", company_name=company)]
    assert table in steps[-1].observation.result["data"]
    steps.append(call(env, "get_table_info", company_name=company, table_name=table))
    steps.append(call(env, "sql_query", company_name=company, table_name=table, query=query))
    rows = steps[-1].observation.result["data"]["rows"]
    steps.append(call(env, "calculator", expression=expression(rows)))
    value = steps[-1].observation.result["data"]
    steps.append(call(env, "submit_answer", answer=f"{value:.4f}"))
    assert all(s.observation.error is None for s in steps), [s.observation.error for s in steps]
    return [s.reward for s in steps]


@pytest.mark.parametrize("question_id", sorted(SOLUTIONS))
def test_an_analyst_answers_each_shipped_question_from_the_tables(env, question_id):
    rewards = solve(env, question_id)
    assert rewards == [0.0, 0.0, 0.0, 0.0, 1.0]
    last = env.state()
    assert last.correct is True and last.question_id == question_id
    assert last.data_source.startswith("synthetic")


def test_every_shipped_question_has_a_solution_and_fictional_tables():
    data = load_synthetic()
    assert {q.id for q in data.questions} == set(SOLUTIONS)
    for tables in data.companies.values():
        assert all("SYNTHETIC" in t.description for t in tables.values())
    assert all("(fictional)" in name for name in data.display_names.values())


def test_the_first_observation_carries_the_question_where_the_documented_client_reads_it(env):
    first = env.reset(seed=1)
    obs = first.observation
    assert first.reward == 0.0 and not first.done
    assert obs.metadata["question"] == obs.question and obs.question.endswith("?")
    assert obs.metadata["company"] == obs.company
    assert "ground_truth" not in obs.metadata


def test_the_same_seed_gives_the_same_question_and_the_same_rewards(env):
    def play(seed: int) -> tuple[str, list[float]]:
        first = env.reset(seed=seed)
        company = first.observation.company
        rewards = [call(env, "get_descriptions", company_name=company).reward]
        rewards.append(call(env, "submit_answer", answer="42").reward)
        return first.observation.question, rewards

    assert play(5) == play(5)
    assert len({play(seed)[0] for seed in range(12)}) > 1  # seeds pick different questions


def test_a_wrong_answer_scores_zero_ends_the_episode_and_reveals_the_reference(env):
    env.reset(question_id="syn-05")
    result = call(env, "submit_answer", answer="\\boxed{1500}")
    assert result.done and result.reward == 0.0
    assert result.observation.metadata["ground_truth"] == "1375"
    assert result.observation.metadata["reward_components"] == {"correct": 0.0}
    assert env.state().correct is False and env.state().submitted == "\\boxed{1500}"


BAD_CALLS = [
    ("no_such_tool", {}, "tool_not_found", "available tools"),
    ("sql_query", {"table_name": DEBT, "query": "SELECT * FROM data WHERE 1"}, "invalid_args",
     "SELECT * is not allowed"),
    ("sql_query", {"table_name": DEBT, "query": "SELECT principal FROM data"}, "invalid_args",
     "must include a filter"),
    ("sql_query", {"table_name": DEBT, "query": "DELETE FROM data WHERE year = '2024'"},
     "invalid_args", "not authorized"),
    ("sql_query", {"table_name": DEBT, "query": "SELEC principal FROM data WHERE 1"},
     "invalid_args", "SQL error"),
    ("sql_query", {"table_name": DEBT, "query": "WITH RECURSIVE r(x) AS (SELECT 1 UNION ALL "
     "SELECT x + 1 FROM r) SELECT count(*) FROM r WHERE x > 0"}, "invalid_args", "stopped after"),
    ("sql_query", {"table_name": "../../etc/passwd", "query": "SELECT 1 WHERE 1"},
     "invalid_args", "no table"),
    ("sql_query", {"table_name": DEBT, "query": "SELECT 1 WHERE 1" + " " * 3000},
     "invalid_args", "2000"),
    ("calculator", {"expression": "__import__('os').system('id')"}, "invalid_args",
     "not allowed"),
    ("calculator", {"expression": "9 ** 9 ** 9"}, "invalid_args", "exponents"),
    ("get_descriptions", {}, "invalid_args", "company_name"),
]  # fmt: skip


def test_bad_tools_arguments_and_queries_are_refused_and_the_episode_goes_on(env):
    env.reset(question_id="syn-05")
    for name, arguments, kind, words in BAD_CALLS:
        if name == "sql_query":
            arguments = {"company_name": "bluefin", **arguments}
        started = time.monotonic()
        result = call(env, name, **arguments)
        error = result.observation.error
        assert error is not None and error.error_type == kind, (name, arguments, error)
        assert words in error.message, (words, error.message)
        assert not result.done and result.reward == 0.0
        assert time.monotonic() - started < 10
    other = call(env, "get_descriptions", company_name="northwind").observation.error
    assert other is not None and "use company_name='bluefin'" in other.message
    rows = call(env, "sql_query", company_name="bluefin", table_name=DEBT,
                query="SELECT principal FROM data WHERE year = '2024'")  # fmt: skip
    assert rows.observation.result["data"]["rows"] == [[450.0]]
    assert call(env, "submit_answer", answer="1375").reward == 1.0


def test_the_tools_are_listed_and_callable_over_mcp_without_counting_steps(env):
    env.reset(question_id="syn-09")
    names = {t.name for t in env.list_tools()}
    assert names == {
        "get_descriptions",
        "get_table_info",
        "sql_query",
        "calculator",
        "submit_answer",
    }
    info = env.call_tool("get_table_info", company_name="cedar_ridge", table_name=GEO)
    assert info["unique_vals_per_col"]["region"][:2] == ["United States", "Canada"]
    assert info["column_dtypes"]["revenue"] == "number"
    with pytest.raises(ToolCallError, match="SELECT \\* is not allowed"):
        env.call_tool("sql_query", company_name="cedar_ridge", table_name=GEO,
                      query="SELECT * FROM data WHERE 1")  # fmt: skip
    assert env.state().step_count == 0


def test_rows_are_bounded_and_the_database_is_read_only():
    rows = [[f"r{i}", i] for i in range(MAX_ROWS + 30)]
    from finqa_env.server.dataset import Table

    tables = CompanyTables({"big": Table("big", "many rows", ["name", "n"], rows)})
    result = tables.query("big", "SELECT name, n FROM big WHERE n >= 0")
    assert len(result["rows"]) == MAX_ROWS and result["truncated"] is True
    for sql in ("UPDATE data SET n = 0 WHERE 1", "ATTACH DATABASE '/tmp/x.db' AS x WHERE 1"):
        with pytest.raises(Exception, match=r"not authorized|SQL error"):
            tables.query("big", sql)
    tables.close()


def test_the_calculator_and_the_tolerance():
    assert calculate("(2388 - 2104) / 2104 * 100") == pytest.approx(13.498, abs=1e-3)
    assert calculate("2^10") == 1024 and calculate("round(sqrt(2), 3)") == 1.414
    with pytest.raises(CalculatorError):
        calculate("().__class__")
    assert score("32.6%", "32.83%") == 1.0 and score("32.0%", "32.83%") == 0.0
    assert score("0.3283", "32.83%") == 1.0 and score("(26)", "-26") == 1.0
    assert score("\\boxed{1,375}", "1375") == 1.0 and score("no idea", "1375") == 0.0


def test_the_stage_draws_the_question_the_tables_and_the_last_query():
    environment = FinQAEnvironment()
    environment.reset(question_id="syn-01")
    environment.step(CallToolAction(tool_name="sql_query", arguments={
        "company_name": "northwind", "table_name": INCOME,
        "query": "SELECT total FROM data WHERE year = '2023' AND 'x' <> '<b>'"}))  # fmt: skip
    view = environment.render()
    assert isinstance(view, Svg)
    assert (
        "in percent?" in view.markup
        and "Northwind Instruments" in view.markup
        and "Tables (3)" in view.markup
    )
    assert "7,012" in view.markup and "&lt;b&gt;" in view.markup and "<b>" not in view.markup
    assert "No answer submitted yet" in view.markup
    environment.close()


def test_the_published_layout_loads_and_answers_sql(tmp_path):
    (tmp_path / "benchmark_questions").mkdir()
    (tmp_path / "input_companies").mkdir()
    with (tmp_path / "benchmark_questions" / "finqa.csv").open("w", newline="") as handle:
        writer = csv.DictWriter(handle, ["id", "company", "question", "user_query", "answer"])
        writer.writeheader()
        writer.writerow({"id": "7", "company": "acme", "question": "q", "answer": "12.5",
                         "user_query": "What is the 2023 ratio?"})  # fmt: skip
    table = {"year": {"0": "2022", "1": "2023"}, "value": {"0": "$ 10", "1": "$ 12"}}
    tables = {
        "acme/us_gaap_RatioTableTextBlock": {"description": "A ratio", "table": json.dumps(table)}
    }
    (tmp_path / "input_companies" / "tables_cleaned_all_companies.json").write_text(
        json.dumps(tables)
    )
    data = load_published(tmp_path)
    assert [q.question for q in data.questions] == ["What is the 2023 ratio?"]
    loaded = data.companies["acme"]["us_gaap_RatioTableTextBlock"]
    assert loaded.columns == ["year", "value"] and loaded.rows[1] == ["2023", "$ 12"]
    result = CompanyTables(data.companies["acme"]).query(
        "us_gaap_RatioTableTextBlock", "SELECT value FROM data WHERE year = '2023'"
    )
    assert result["rows"] == [["$ 12"]]
    with pytest.raises(DatasetUnavailable, match=r"finqa\.csv is missing"):
        load_published(tmp_path / "nowhere")


def test_the_hub_download_fails_clearly_when_the_hub_cannot_be_reached(tmp_path, monkeypatch):
    monkeypatch.delenv("HF_HUB_OFFLINE", raising=False)
    with socket.socket() as sock:  # a loopback port nobody listens on: the network boundary
        sock.bind(("127.0.0.1", 0))
        closed = f"http://127.0.0.1:{sock.getsockname()[1]}"
    with pytest.raises(DatasetUnavailable, match=r"snorkelai/finqa-data.*unset FINQA_DATASET"):
        download_published(endpoint=closed, cache_dir=str(tmp_path))


class FakeHub(ThreadingHTTPServer):
    """The Hub's dataset API on loopback, for one dataset: revision info, file tree, files."""

    SHA = "0123456789abcdef0123456789abcdef01234567"

    def __init__(self, files: dict[str, bytes]) -> None:
        super().__init__(("127.0.0.1", 0), _HubHandler)
        self.files = files
        self.paths: list[str] = []

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}"


class _HubHandler(BaseHTTPRequestHandler):
    server: FakeHub

    def log_message(self, *args) -> None:
        pass

    def do_GET(self) -> None:
        self._answer(head=False)

    def do_HEAD(self) -> None:
        self._answer(head=True)

    def _answer(self, head: bool) -> None:
        path, hub = self.path.split("?")[0], self.server
        hub.paths.append(path)
        body, headers, status = b"{}", {"Content-Type": "application/json"}, 404
        if path.startswith("/api/datasets/") and "/revision/" in path:
            siblings = [{"rfilename": name} for name in hub.files]
            info = {"id": "snorkelai/finqa-data", "sha": hub.SHA, "siblings": siblings}
            body, status = json.dumps(info).encode(), 200
        elif path.startswith("/api/datasets/") and "/tree/" in path:
            tree = [{"type": "file", "path": n, "size": len(b), "oid": hashlib.sha1(b).hexdigest()}
                    for n, b in hub.files.items()]  # fmt: skip
            body, status = json.dumps(tree).encode(), 200
        elif "/resolve/" in path:
            name = path.split("/resolve/", 1)[1].split("/", 1)[1]
            if name in hub.files:
                body, status = hub.files[name], 200
                etag = f'"{hashlib.sha1(body).hexdigest()}"'
                headers = {"X-Repo-Commit": hub.SHA, "ETag": etag}
        self.send_response(status)
        for key, value in {**headers, "Content-Length": str(len(body))}.items():
            self.send_header(key, value)
        self.end_headers()
        if not head:
            self.wfile.write(body)


def test_the_published_set_downloads_from_the_hub_and_plays(tmp_path):
    questions_csv = "id,company,user_query,answer\n1,acme,What was the 2023 value?,12\n"
    table = json.dumps([{"year": "2022", "value": 10}, {"year": "2023", "value": 12}])
    tables = {"acme/us_gaap_ValueTableTextBlock": {"description": "Values", "table": table}}
    hub = FakeHub(
        {
            "benchmark_questions/finqa.csv": questions_csv.encode(),
            "input_companies/tables_cleaned_all_companies.json": json.dumps(tables).encode(),
            "README.md": b"not downloaded: only the two files the loader reads",
        }
    )
    thread = threading.Thread(target=hub.serve_forever, daemon=True)
    thread.start()
    try:
        environ = {
            "FINQA_DATASET": "snorkelai/finqa-data",
            "HF_ENDPOINT": hub.url,
            "HF_HUB_CACHE": str(tmp_path),
        }
        data = load_configured(environ)
    finally:
        hub.shutdown()
        hub.server_close()
    assert "/api/datasets/snorkelai/finqa-data/revision/main" in hub.paths
    assert not any(p.endswith("README.md") for p in hub.paths)
    environment = FinQAEnvironment(dataset=data)
    first = environment.reset(seed=0)
    assert first.question == "What was the 2023 value?" and first.company == "acme"
    query = "SELECT value FROM data WHERE year = '2023'"
    rows = environment.call_tool("sql_query", {"company_name": "acme", "query": query,
                                 "table_name": "us_gaap_ValueTableTextBlock"})  # fmt: skip
    assert rows.result["data"]["rows"] == [[12.0]]
    done = environment.step(CallToolAction(tool_name="submit_answer", arguments={"answer": "12"}))
    assert done.done and done.reward == 1.0
    environment.close()


# -- questions from rows of a task file (task_source / task_index) --------------------------


def test_a_row_of_the_shipped_task_file_plays_the_question_it_names(env):
    first = env.reset(task_source="starter.jsonl", task_index=1).observation
    question = next(q for q in load_synthetic().questions if q.id == "syn-03")
    assert first.question == question.question and first.company == question.company
    state = env.state()
    assert (state.question_id, state.task_source, state.task_index) == (
        "syn-03",
        "starter.jsonl",
        1,
    )
    result = call(env, "submit_answer", answer=question.answer)  # the data set's answer scores
    assert result.done and result.reward == 1.0


BAD_ROWS = [  # each refused naming the row, with these words
    ({"question_id": "syn-99"}, r"row 0 of bad.jsonl: no question 'syn-99' in synthetic"),
    ({"question_id": 3}, r"row 0 of bad.jsonl: Input should be a valid string"),
    ({"question_id": "q" * 65}, r"row 0 of bad.jsonl: String should have at most 64"),
    ({"question": "What is 2+2?", "answer": "4"}, r"has no column for 'question_id'"),
]


def test_the_shipped_task_file_keeps_the_task_source_contract():
    from finqa_env.server.environment import TASK_ROWS, row_question

    check_task_source(
        FinQAEnvironment,
        TASK_ROWS,
        rows=6,
        gives="question",
        replaced={"question_id": "syn-01"},
        read=lambda picked: row_question(picked, load_synthetic()),
        bad_rows=BAD_ROWS,
    )
