"""Agent World Model over the wire: the oracle's tool calls complete a task and verify pays 1.0;
the code verifier names what is missing or extra; the SQL verifier asks the judge endpoint (and
says "not judged" without one); done keeps the session's artefacts; bad calls are clear
observations; the published-set loader reads its files and stops cleanly at the network."""

from __future__ import annotations

import json
import socket
from pathlib import Path

import pytest
from agent_world_model_env import AWMEnv, CallToolAction
from agent_world_model_env.server import published
from agent_world_model_env.server.oracle import solution
from agent_world_model_env.server.worlds import SCENARIOS
from fastapi import FastAPI

from openenv.core import ClientError
from openenv.testing import check_task_source
from tests.servers import env_fixtures, served

url, env = env_fixtures("agent_world_model_env.server.app:app", AWMEnv)


def call(env, tool: str, **arguments):
    return env.step(CallToolAction(tool_name=tool, arguments=arguments))


def play_solution(env, scenario: str, task_idx: int) -> list[float]:
    env.reset(seed=0, scenario=scenario, task_idx=task_idx)
    plan = solution(SCENARIOS[scenario], task_idx)
    return [call(env, step["tool_name"], **step["arguments"]).reward for step in plan]


@pytest.mark.parametrize("scenario", sorted(SCENARIOS))
def test_each_shipped_scenario_is_solved_with_its_own_tools(env, scenario):
    rewards = play_solution(env, scenario, 0)
    assert rewards[-1] == 1.0 and set(rewards[:-1]) == {0.0}


def test_the_code_verifier_names_the_missing_and_the_extra_change(env):
    first = env.reset(seed=0, scenario="banking_1", task_idx=0).observation
    assert (
        first.task.startswith("Transfer 75 from Ada to Cleo") and "create_transfer" in first.tools
    )
    call(env, "create_transfer", from_account=1, to_account=3, amount=75.0)
    half = call(env, "verify", verifier_mode="code")
    assert half.reward == 0.0 and half.observation.reward_type == "incomplete"
    assert (
        half.observation.verify["reason"]
        == "missing: update in accounts #1 with {'balance': 425.0}"
    )
    call(env, "update_account", id=1, balance=425.0)
    call(env, "update_account", id=3, balance=75.0)
    call(env, "update_account", id=2, owner="Mallory")
    extra = call(env, "verify").observation
    assert extra.verify["reason"] == "unexpected change: accounts #2: owner 'Ben' → 'Mallory'"
    call(env, "update_account", id=2, owner="Ben")
    done = call(env, "verify")
    assert done.reward == 1.0 and done.observation.verify["complete"] is True
    assert "accounts #1: balance 500.0 → 425.0" in done.observation.verify["changes"]


def test_reward_config_and_seeded_reset(env):
    env.reset(seed=0, scenario="calendar_1", task_idx=2, reward_config={"complete": 5.0})
    call(env, "delete_meeting", id=2)
    assert call(env, "verify").reward == 5.0
    with pytest.raises(ClientError, match="unknown key"):
        env.reset(seed=0, reward_config={"bonus": 1.0})
    firsts = [env.reset(seed=11).observation for _ in range(2)]
    assert (firsts[0].scenario, firsts[0].task_idx) == (firsts[1].scenario, firsts[1].task_idx)
    seen = {(o.scenario, o.task_idx) for o in (env.reset(seed=s).observation for s in range(8))}
    assert len(seen) > 2
    assert play_solution(env, "e_commerce_1", 1) == play_solution(env, "e_commerce_1", 1)


def test_bad_calls_are_clear_observations_and_change_nothing(env):
    env.reset(seed=0, scenario="e_commerce_1", task_idx=0, reward_config={"format_error": -0.5})
    other = call(env, "list_meetings")
    assert other.reward == -0.5 and other.observation.reward_type == "format_error"
    assert "belongs to scenario calendar_1" in other.observation.error.message
    unknown = call(env, "drop_everything").observation.error
    assert unknown.error_type == "tool_not_found"
    bad = call(env, "create_order", product_id="one").observation.error
    assert bad.error_type == "invalid_args" and "quantity: Field required" in bad.message
    missing = call(env, "get_product", id=99).observation.error
    assert missing.message == "no product with id 99"
    sneaky = call(env, "list_products", name="x' OR 1=1; DROP TABLE products; --")
    assert sneaky.observation.result["data"] == []
    assert len(call(env, "list_products").observation.result["data"]) == 4
    untouched = call(env, "verify").observation.verify
    assert untouched["changes"] == [] and untouched["reason"].startswith("missing: insert")
    with pytest.raises(ClientError, match="unknown scenario"):
        env.reset(scenario="atlantis_9")


def test_done_ends_the_episode_and_keeps_artefacts_on_request(env):
    env.reset(seed=0, scenario="calendar_1", task_idx=1)
    call(env, "update_meeting", id=3, day="Fri", hour=15)
    call(env, "verify")
    done = call(env, "done", keep_session=True)
    assert done.done and done.reward == 0.0
    folder = Path(done.observation.session_dir)
    try:
        assert sorted(p.name for p in folder.iterdir()) == [
            "final.sql",
            "initial.sql",
            "session.json",
            "trajectory.jsonl",
        ]
        assert "'Fri'" in (folder / "final.sql").read_text()
        assert "'Fri'" not in (folder / "initial.sql").read_text()
        assert json.loads((folder / "session.json").read_text())["verify"]["complete"] is True
        lines = (folder / "trajectory.jsonl").read_text().splitlines()
        tools = [json.loads(line)["tool"] for line in lines]
        assert tools == ["update_meeting", "verify"]  # the calls before done
    finally:
        for item in folder.iterdir():
            item.unlink()
        folder.rmdir()
    env.reset(seed=0, scenario="calendar_1")
    assert call(env, "done").observation.session_dir is None


def test_the_mcp_channel_lists_the_episode_scenarios_tools(env):
    env.reset(seed=0, scenario="banking_1", task_idx=1)
    names = {t.name for t in env.list_tools()}
    assert names == {
        *(f"{verb}_account" for verb in ("get", "create", "update", "delete")),
        *(f"{verb}_transfer" for verb in ("get", "create", "update", "delete")),
        "list_accounts",
        "list_transfers",
        "verify",
        "done",
        "__list_scenarios__",
    }
    assert env.call_tool("create_account", owner="Dara", balance=0.0)["id"] == 4
    assert call(env, "verify").reward == 1.0  # a call over MCP changes the same database


def test_list_scenarios_names_every_scenario_and_its_tasks(env):
    env.reset(seed=0)
    obs = call(env, "__list_scenarios__").observation
    assert obs.total == 3
    names = {s["name"]: s for s in obs.scenarios}
    assert set(names) == {"e_commerce_1", "calendar_1", "banking_1"}
    assert names["calendar_1"]["num_tasks"] == 3 and names["calendar_1"]["playable"]


@pytest.fixture(scope="module")
def judge():
    """A local OpenAI-compatible endpoint standing in for the judge model: always 'complete'."""
    seen: list[dict] = []
    app = FastAPI()

    @app.post("/v1/chat/completions")
    def complete(body: dict) -> dict:
        seen.append(body)
        content = '{"complete": true, "reason": "the meeting was cancelled"}'
        return {"choices": [{"message": {"role": "assistant", "content": content}}]}

    with served(app) as base:
        yield base + "/v1", seen


def test_the_sql_verifier_asks_the_judge_and_says_so_without_one(env, judge, monkeypatch):
    monkeypatch.delenv("OPENENV_LLM_URL", raising=False)
    monkeypatch.delenv("OPENENV_LLM_JUDGE_URL", raising=False)
    env.reset(seed=0, scenario="calendar_1", task_idx=2)
    call(env, "delete_meeting", id=2)
    alone = call(env, "verify", verifier_mode="sql")
    assert alone.reward == 0.0 and alone.observation.reward_type == "not_judged"
    assert "OPENENV_LLM_URL" in alone.observation.verify["reason"]
    base, seen = judge
    monkeypatch.setenv("OPENENV_LLM_JUDGE_URL", base)
    judged = call(env, "verify", verifier_mode="sql", final_answer="Cancelled it.")
    assert judged.reward == 1.0 and judged.observation.verify["reason"].startswith("judge: ")
    prompt = seen[-1]["messages"][-1]["content"]
    assert "Cancel the Design review." in prompt and "meetings: deleted" in prompt


def write_published(folder: Path) -> None:
    folder.mkdir(parents=True)
    name = "E-Commerce 33"
    tables = [
        {"name": "products", "ddl": "CREATE TABLE products (id INTEGER PRIMARY KEY, name TEXT, "
         "price REAL)", "indexes": ["CREATE INDEX by_price ON products(price)"]},
        {"name": "tags", "ddl": "CREATE TABLE tags (label TEXT PRIMARY KEY, uses INT)"},
    ]  # fmt: skip
    rows = [
        "INSERT INTO products VALUES (1, 'Pen', 2.0)",
        "DROP TABLE products",
        "INSERT INTO tags VALUES ('office', 3)",
    ]
    records = {
        "gen_tasks.jsonl": {"scenario": name, "tasks": ["add an 'Ink' product at 1.5"]},
        "gen_db.jsonl": {"scenario": name, "db_schema": {"tables": tables}},
        "gen_sample.jsonl": {
            "scenario": name,
            "sample_data": {"tables": [{"table_name": "products", "insert_statements": rows}]},
        },
    }
    for filename, record in records.items():
        (folder / filename).write_text(json.dumps(record) + "\n")


def test_the_published_set_is_read_built_and_played_with_our_tools(
    tmp_path, env, judge, monkeypatch
):
    write_published(tmp_path / "outputs")
    scenarios = published.load_published(tmp_path)
    db, failed = published.build_database(scenarios["e_commerce_33"])
    assert db.execute("SELECT name FROM products").fetchall() == [("Pen",)]
    assert failed == ["DROP TABLE products: not authorized"]  # the SQL is data, not a program
    monkeypatch.setenv("AWM_DATA_DIR", str(tmp_path))
    monkeypatch.setenv("OPENENV_LLM_JUDGE_URL", judge[0])
    env.reset(seed=0)
    listed = {s["name"]: s for s in call(env, "__list_scenarios__").observation.scenarios}
    assert listed["e_commerce_33"]["playable"] and listed["e_commerce_33"]["num_tasks"] == 1
    first = env.reset(scenario="e_commerce_33", task_idx=0).observation
    assert first.task == "add an 'Ink' product at 1.5"
    assert set(first.tools) >= {"list_products", "create_product", "list_tags", "update_tag"}
    assert call(env, "list_tags").observation.result["data"] == [
        {"rowid": 1, "label": "office", "uses": 3}
    ]
    created = call(env, "create_product", name="Ink", price=1.5).observation.result["data"]
    assert created == {"id": 2, "name": "Ink", "price": 1.5}
    assert call(env, "update_tag", rowid=1, uses=4).observation.error is None
    code = call(env, "verify", verifier_mode="code").observation
    assert code.reward_type == "not_judged" and "use verifier_mode='sql'" in code.verify["reason"]
    judged = call(env, "verify", verifier_mode="sql")
    assert judged.reward == 1.0 and "tags #1: uses 3 → 4" in judged.observation.verify["changes"]
    (tmp_path / "outputs" / "gen_db.jsonl").write_text("{not json\n")
    with pytest.raises(
        published.PublishedDataUnavailable, match=r"gen_db\.jsonl, line 1: not JSON"
    ):
        published.load_published(tmp_path)


def test_the_download_stops_at_the_network_with_a_clear_error(tmp_path):
    with socket.socket() as closed:
        closed.bind(("127.0.0.1", 0))
        port = closed.getsockname()[1]
    with pytest.raises(published.PublishedDataUnavailable, match="set AWM_DATA_DIR"):
        published.download(tmp_path, endpoint=f"http://127.0.0.1:{port}")


def test_the_stage_marks_changed_rows_and_lists_deleted_ones():
    from agent_world_model_env.server.environment import AgentWorldModelEnvironment

    local = AgentWorldModelEnvironment()
    local.reset(seed=0, scenario="calendar_1", task_idx=2)
    before = local.render().markup
    assert "Task 2: Cancel the Design review." in before and "Not verified yet" in before
    local.step(CallToolAction(tool_name="delete_meeting", arguments={"id": 2}))
    local.step(CallToolAction(tool_name="update_room", arguments={"id": 1, "seats": 8}))
    after = local.render().markup
    assert "✗ deleted: id 2, title Design review" in after
    assert after.count('fill="#fff3c4"') == 1  # the room changed
    assert "{" not in after.split("</svg>")[0].split(">", 1)[1]  # words, never JSON
    local.close()


# -- tasks from rows of a task file (task_source / task_index) ------------------------------


def test_a_row_of_the_shipped_task_file_plays_the_scenario_task_it_names(env):
    first = env.reset(task_source="starter.jsonl", task_index=4).observation
    assert (first.scenario, first.task_idx) == ("banking_1", 0)
    assert first.task.startswith("Transfer 75 from Ada to Cleo")
    state = env.state()
    assert (state.task_source, state.task_index) == ("starter.jsonl", 4)
    plan = solution(SCENARIOS["banking_1"], 0)
    rewards = [call(env, step["tool_name"], **step["arguments"]).reward for step in plan]
    assert rewards[-1] == 1.0  # the scenario's own verifier scores it


BAD_ROWS = [  # each refused naming the row, with these words
    ({"scenario": "nowhere_1", "task_idx": 0}, r"row 0 of bad.jsonl: unknown scenario"),
    ({"scenario": "banking_1", "task_idx": 9}, r"row 0 of bad.jsonl: task_idx 9 out of range"),
    ({"scenario": "banking_1", "task_idx": "0"}, r"row 0 of bad.jsonl: Input should be a"),
    ({"scenario": "banking_1", "task_idx": -1}, r"row 0 of bad.jsonl: Input should be greater"),
    ({"scenario": "banking_1"}, r"row 0 of bad.jsonl has no column for 'task_idx'"),
]


def test_the_shipped_task_file_keeps_the_task_source_contract():
    from agent_world_model_env.server.environment import (
        TASK_ROWS,
        AgentWorldModelEnvironment,
        row_task,
    )

    check_task_source(
        AgentWorldModelEnvironment,
        TASK_ROWS,
        rows=6,
        gives="task",
        replaced={"scenario": "banking_1", "task_idx": 0},
        read=row_task,
        bad_rows=BAD_ROWS,
    )
