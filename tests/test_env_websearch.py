"""The web search env over the wire: a searcher finds every shipped question's answer in the
offline corpus's results and scores 1.0; results come in the documented format; the same seed
replays the same episode; bad actions are refused and the session goes on; the Serper provider
speaks Serper's API to a stand-in on loopback and fails clearly without a key."""

from __future__ import annotations

import json
import socket
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
from websearch_env import WebSearchAction, WebSearchEnv
from websearch_env.server.environment import WebSearchEnvironment, normalize, questions
from websearch_env.server.providers import (
    OfflineProvider,
    SerperProvider,
    provider_from_env,
    shipped_corpus,
)

from openenv.core import ClientError
from openenv.core.errors import InvalidAction
from openenv.testing import check_task_source
from tests.conftest import env_fixtures

url, env = env_fixtures("websearch_env.server.app:app", WebSearchEnv)


def test_a_searcher_answers_every_shipped_question_from_the_offline_results(env):
    for question in questions():
        first = env.reset(question_id=question["id"])
        assert first.observation.question == question["question"] and first.reward == 0.0
        found = env.step(WebSearchAction(query=question["question"]))
        assert found.reward == 0.0 and not found.done and found.observation.provider == "offline"
        top = " ".join(normalize(r.content) for r in found.observation.web_contents[:3])
        hits = [a for a in question["answers"] if normalize(a) in top]
        assert hits, (question["id"], [r.title for r in found.observation.web_contents])
        done = env.step(WebSearchAction(answer=hits[0]))
        assert done.done and done.reward == 1.0, question["id"]
        assert done.observation.metadata["reward_components"] == {"correct": 1.0}
        assert env.state().correct is True


def test_results_come_in_the_documented_format(env):
    env.reset(question_id="ws-09")
    result = env.step(WebSearchAction(query="Canberra capital"))
    obs = result.observation
    lines = obs.content.splitlines()
    assert lines[0] == "Search results for: Canberra capital" and lines[1] == ""
    assert lines[2] == "[1] Canberra"
    assert lines[3] == "    URL: https://offline.corpus/wiki/canberra"
    assert lines[4].startswith("    Canberra is the capital city of Australia.")
    assert obs.web_contents[0].title == "Canberra" and len(obs.web_contents) <= 5
    assert obs.query == "Canberra capital" and obs.searches == 1


def test_a_wrong_answer_scores_zero_and_shows_the_accepted_answers(env):
    env.reset(question_id="ws-12")
    result = env.step(WebSearchAction(answer="Saturn"))
    assert result.done and result.reward == 0.0
    assert result.observation.metadata["accepted_answers"] == ["Jupiter"]
    assert env.state().answer == "Saturn" and env.state().correct is False


def test_the_same_seed_gives_the_same_question_and_the_same_rewards(env):
    def play(seed: int) -> tuple[str, list[float]]:
        first = env.reset(seed=seed)
        steps = [env.step(WebSearchAction(query="famous tower in Paris"))]
        steps.append(env.step(WebSearchAction(answer="1889")))
        contents = "".join(s.observation.content for s in steps)
        return first.observation.question + contents, [s.reward for s in steps]

    assert play(4) == play(4)
    assert len({play(seed)[0] for seed in range(8)}) > 1


def test_bad_actions_are_refused_and_the_session_goes_on(env):
    env.reset(question_id="ws-01")
    with pytest.raises(ClientError, match="not both"):
        env.step(WebSearchAction(query="tower", answer="1889"))
    with pytest.raises(ClientError, match="type a query"):
        env.step(WebSearchAction(query="   "))
    with pytest.raises(InvalidAction, match="at most 400 characters"):
        env.step({"query": "x" * 401})
    with pytest.raises(ClientError, match="no question 'nope'"):
        env.reset(question_id="nope")
    env.reset(question_id="ws-01")
    empty = env.step(WebSearchAction(query="zzzz qqqq"))
    assert empty.observation.content.startswith("[ERROR] No search results found")
    assert env.state().step_count == 1 and not empty.done
    assert env.step(WebSearchAction(answer="1889")).reward == 1.0


def test_the_episode_ends_after_max_steps_without_an_answer(env):
    env.reset(question_id="ws-03", max_steps=2)
    assert not env.step(WebSearchAction(query="Curie")).done
    last = env.step(WebSearchAction(query="Warsaw"))
    assert (
        last.done and last.reward == 0.0 and "out of steps" in last.observation.metadata["status"]
    )


def test_bm25_ranks_the_page_that_answers_first():
    provider = OfflineProvider(
        [
            {"id": "a", "title": "Apples", "url": "u:a", "text": "Apples grow on trees."},
            {"id": "b", "title": "Baikal", "url": "u:b", "text": "Baikal is the deepest lake."},
            {"id": "c", "title": "Lakes", "url": "u:c", "text": "A lake is water."},
        ]
    )
    assert [r.title for r in provider.search("deepest lake", 3)] == ["Baikal", "Lakes"]
    assert provider.search("the of and", 3) == []
    assert len(shipped_corpus().documents) >= 20


# -- Serper: the real provider, up to the network boundary ------------------------------------


class FakeSerper(ThreadingHTTPServer):
    """Answers ``POST /search`` like Serper.dev for one key; records the requests."""

    KEY = "serper-test-key"

    def __init__(self) -> None:
        super().__init__(("127.0.0.1", 0), _SerperHandler)
        self.requests: list[tuple[dict, str | None]] = []

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}/search"


class _SerperHandler(BaseHTTPRequestHandler):
    server: FakeSerper

    def log_message(self, *args) -> None:
        pass

    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))))
        key = self.headers.get("X-API-KEY")
        self.server.requests.append((body, key))
        if key != FakeSerper.KEY:
            reply, status = {"message": "Unauthorized."}, 403
        else:
            organic = [
                {"title": f"Result {i} <b>", "link": f"https://example.org/{i}",
                 "snippet": f"Snippet {i} about {body['q']}", "position": i}
                for i in range(1, 9)
            ]  # fmt: skip
            reply, status = {"searchParameters": body, "organic": organic}, 200
        data = json.dumps(reply).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)


@pytest.fixture(scope="module")
def serper() -> Iterator[FakeSerper]:
    server = FakeSerper()
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield server
    server.shutdown()
    server.server_close()


def serper_env(serper: FakeSerper, key: str | None) -> WebSearchEnvironment:
    environ = {"WEBSEARCH_PROVIDER": "serper", "SERPER_ENDPOINT": serper.url}
    if key is not None:
        environ["SERPER_API_KEY"] = key
    env = WebSearchEnvironment(provider=provider_from_env(environ))
    env.reset(seed=0, top_k=3)
    return env


def test_serper_is_asked_like_the_documented_env_and_its_results_are_formatted(serper):
    env = serper_env(serper, FakeSerper.KEY)
    obs = env.step(WebSearchAction(query="capital of Australia"))
    body, key = serper.requests[-1]
    assert key == FakeSerper.KEY
    assert body == {"q": "capital of Australia", "num": 3, "gl": "us", "hl": "en"}
    assert [r.url for r in obs.web_contents] == [f"https://example.org/{i}" for i in (1, 2, 3)]
    assert obs.content.splitlines()[2:4] == ["[1] Result 1 <b>", "    URL: https://example.org/1"]
    assert obs.provider == "serper" and obs.reward == 0.0
    markup = env.render().markup
    assert "Result 1 &lt;b&gt;" in markup and "<b>" not in markup and "Serper" in markup


def test_without_a_key_serper_says_what_to_set_and_the_episode_goes_on(serper):
    env = serper_env(serper, None)
    sent = len(serper.requests)
    obs = env.step(WebSearchAction(query="anything"))
    assert obs.content.startswith("[ERROR] Search failed: SERPER_API_KEY is not set")
    assert "WEBSEARCH_PROVIDER=offline" in obs.metadata["error"] and not obs.done
    assert len(serper.requests) == sent  # nothing was sent without a key
    with_key = env.step(WebSearchAction(query="anything", temp_api_key=FakeSerper.KEY))
    assert with_key.web_contents and serper.requests[-1][1] == FakeSerper.KEY
    markup = env.render().markup
    assert "Result 1" in markup and "SERPER_API_KEY" not in markup


def test_a_refused_key_or_an_unreachable_serper_is_a_clear_error(serper):
    env = serper_env(serper, "wrong-key")
    obs = env.step(WebSearchAction(query="anything"))
    assert obs.metadata["error"] == "Serper refused the API key (HTTP 403)"
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        closed = f"http://127.0.0.1:{sock.getsockname()[1]}/search"
    provider = SerperProvider(api_key="k", endpoint=closed, timeout=5)
    env = WebSearchEnvironment(provider=provider)
    env.reset(seed=0)
    obs = env.step(WebSearchAction(query="anything"))
    assert "Serper could not be reached (ConnectError" in obs.metadata["error"]
    assert "could not be reached" in env.render().markup


# -- questions from rows of a task file (task_source / task_index) --------------------------


def test_a_row_of_the_shipped_task_file_plays_the_question_it_names(env):
    first = env.reset(task_source="starter.jsonl", task_index=1).observation
    question = next(q for q in questions() if q["id"] == "ws-03")
    assert first.question == question["question"]
    state = env.state()
    assert (state.question_id, state.task_source, state.task_index) == (
        "ws-03",
        "starter.jsonl",
        1,
    )
    done = env.step(WebSearchAction(answer=question["answers"][0]))  # the shipped answer scores
    assert done.done and done.reward == 1.0


BAD_ROWS = [  # each refused naming the row, with these words
    ({"question_id": "ws-99"}, r"row 0 of bad.jsonl: no question 'ws-99'; ids: ws-01"),
    ({"question_id": 3}, r"row 0 of bad.jsonl: Input should be a valid string"),
    ({"question_id": "q" * 65}, r"row 0 of bad.jsonl: String should have at most 64"),
    ({"question": "Who?", "answers": ["Me"]}, r"has no column for 'question_id'"),
]


def test_the_shipped_task_file_keeps_the_task_source_contract():
    from websearch_env.server.environment import TASK_ROWS, row_question

    check_task_source(
        WebSearchEnvironment,
        TASK_ROWS,
        rows=6,
        gives="question",
        replaced={"question_id": "ws-01"},
        read=row_question,
        bad_rows=BAD_ROWS,
    )
