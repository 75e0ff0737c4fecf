"""Agents in the playground: the server's agent (random, a Python policy, an OpenAI-compatible
chat endpoint: chosen by environment variables, never by the page) plays autoplay steps and
answers the visitor's moves in a two-player game; its failures are said and the tab plays on."""

from __future__ import annotations

from collections.abc import Iterator

import httpx
import pytest
from connect4_env.server.environment import Connect4Environment
from fastapi.testclient import TestClient

from openenv.server import create_app
from openenv.web.agents import (
    ChatAgent,
    PolicyAgent,
    RandomAgent,
    agent_from_env,
)
from tests.agent_apps import chat
from tests.servers import served


@pytest.fixture(scope="module")
def endpoint() -> Iterator[str]:
    with served(chat) as url:
        yield url + "/v1"


def playground(monkeypatch, **environ: str) -> TestClient:
    for name in ("OPENENV_AGENT", "OPENENV_AGENT_URL", "OPENENV_AGENT_MODEL"):
        monkeypatch.delenv(name, raising=False)
    for name, value in environ.items():
        monkeypatch.setenv(name, value)
    return TestClient(create_app(Connect4Environment))


def hot_seat(client: TestClient) -> str:
    """A tab playing Connect Four with a second player (the agent can be that player)."""
    tab = client.post("/web/stage/open", json={}).json()["tab"]
    controller = client.app.state.openenv.web["controller"]
    assert client.portal is not None  # the app's own event loop, as a request would use
    client.portal.call(controller.reset, controller.tabs.by_key(tab), {"opponent": "human"})
    return tab


def steps(client: TestClient, tab: str) -> list[dict]:
    return client.app.state.openenv.web["controller"].tabs.by_key(tab).episode.steps


def test_the_agent_comes_from_the_environment_never_the_page(monkeypatch):
    assert isinstance(agent_from_env({}), RandomAgent)
    assert isinstance(agent_from_env({"OPENENV_AGENT": "tests.agent_apps:leftmost"}), PolicyAgent)
    chat_agent = agent_from_env(
        {"OPENENV_AGENT": "openai", "OPENENV_AGENT_URL": "http://x/v1", "OPENENV_AGENT_MODEL": "m"}
    )
    assert isinstance(chat_agent, ChatAgent) and chat_agent.url == "http://x/v1/chat/completions"
    for bad, reason in (
        ({"OPENENV_AGENT": "openai"}, "needs OPENENV_AGENT_URL"),
        ({"OPENENV_AGENT": "nocolon"}, "random, openai or module:function"),
        ({"OPENENV_AGENT": "tests.agent_apps:ASKED"}, "is not a function"),
    ):
        with pytest.raises(ValueError, match=reason):
            agent_from_env(bad)


def test_a_policy_answers_each_move_of_the_visitor(monkeypatch):
    with playground(monkeypatch, OPENENV_AGENT="tests.agent_apps:leftmost") as client:
        tab = hot_seat(client)
        answer = client.post("/web/stage/act", json={"tab": tab, "index": 3, "reply": True}).json()
        assert answer["ok"], answer
        labels = [s["label"] for s in steps(client, tab)]
        assert len(labels) == 2 and labels[1].startswith("🤖 ")
        assert "the agent plays (tests.agent_apps:leftmost)" in client.get("/web/").text


def test_autoplay_with_the_agent_steps_its_choice(monkeypatch):
    with playground(monkeypatch, OPENENV_AGENT="tests.agent_apps:leftmost") as client:
        tab = hot_seat(client)
        for _ in range(2):
            assert client.post("/web/stage/autoplay", json={"tab": tab, "agent": True}).json()["ok"]
        assert [s["action"]["column"] for s in steps(client, tab)] == [0, 0]


@pytest.mark.parametrize(
    ("policy", "reason"),
    [("broken", "the policy raised RuntimeError: no idea"), ("out_of_range", "not one of the")],
)
def test_a_failing_policy_is_said_and_the_visitor_plays_on(monkeypatch, policy, reason):
    with playground(monkeypatch, OPENENV_AGENT=f"tests.agent_apps:{policy}") as client:
        tab = hot_seat(client)
        answer = client.post("/web/stage/act", json={"tab": tab, "index": 3, "reply": True}).json()
        assert not answer["ok"] and "The agent could not move: " in answer["error"]
        assert reason in answer["error"] and len(steps(client, tab)) == 1  # the visitor's move
        assert client.post("/web/stage/act", json={"tab": tab, "index": 2}).json()["ok"]


def test_a_chat_endpoint_plays_from_the_numbered_legal_actions(monkeypatch, endpoint):
    environ = {"OPENENV_AGENT": "openai", "OPENENV_AGENT_URL": endpoint}
    with playground(monkeypatch, **environ, OPENENV_AGENT_MODEL="fake") as client:
        tab = hot_seat(client)
        answer = client.post("/web/stage/act", json={"tab": tab, "index": 0, "reply": True}).json()
        assert answer["ok"], answer
        _, its = steps(client, tab)
        assert its["label"].startswith("🤖 ") and its["action"]["column"] == 6  # the last offered
        asked = httpx.get(endpoint.removesuffix("/v1") + "/asked").json()[-1]
        assert (
            asked["model"] == "fake" and "Legal actions:\n1. " in asked["messages"][-1]["content"]
        )
    with playground(monkeypatch, **environ, OPENENV_AGENT_MODEL="nonsense") as client:
        tab = hot_seat(client)
        answer = client.post("/web/stage/act", json={"tab": tab, "index": 0, "reply": True}).json()
        assert not answer["ok"] and "names no legal action: 'the blue one'" in answer["error"]


def test_a_dead_chat_endpoint_is_said(monkeypatch):
    environ = {"OPENENV_AGENT": "openai", "OPENENV_AGENT_URL": "http://127.0.0.1:9/v1"}
    with playground(monkeypatch, **environ, OPENENV_AGENT_MODEL="m") as client:
        tab = hot_seat(client)
        answer = client.post("/web/stage/autoplay", json={"tab": tab, "agent": True}).json()
        assert not answer["ok"] and "the chat endpoint did not answer" in answer["error"]


async def test_the_chat_endpoint_gets_at_most_a_few_moves_at_once(monkeypatch):
    import asyncio

    import openenv.web.agents as agents
    from openenv.core.views import ActionChoice

    agent = ChatAgent("http://unused/v1", "m")
    busy, most = 0, 0
    release = asyncio.Event()

    async def post(body, headers):
        nonlocal busy, most
        busy += 1
        most = max(most, busy)
        await release.wait()
        busy -= 1
        return "1"

    monkeypatch.setattr(agent, "_post", post)
    monkeypatch.setattr(agents, "CHAT_TIMEOUT_S", 0.2)
    legal = [ActionChoice("a", {"x": 1})]
    calls = [asyncio.create_task(agent.choose({}, legal)) for _ in range(agents.MAX_CHAT_CALLS)]
    await asyncio.sleep(0)
    with pytest.raises(agents.AgentError, match="busy with other visitors"):
        await agent.choose({}, legal)  # one more waits its bound, then is refused
    release.set()
    assert [m.index for m in await asyncio.gather(*calls)] == [0] * agents.MAX_CHAT_CALLS
    assert most == agents.MAX_CHAT_CALLS


def test_the_envs_own_solver_plays_when_asked(monkeypatch):
    """Presentation mode with no agent set up: the env's solver (the oracle its validation
    plays) chooses each step, logged with a 🧭, and wins the episode."""
    from grid_world_env.server.environment import GridWorldEnvironment

    monkeypatch.delenv("OPENENV_AGENT", raising=False)
    with TestClient(create_app(GridWorldEnvironment)) as client:
        assert 'data-player=\\"solver\\"' in client.get("/web/").text  # the presentation bar
        tab = client.post("/web/stage/open", json={}).json()["tab"]
        for _ in range(50):
            answer = client.post("/web/stage/autoplay", json={"tab": tab, "solver": True}).json()
            assert answer["ok"], answer
            if answer.get("done"):
                break
        labels = [s["label"] for s in steps(client, tab)]
        assert answer.get("done") and labels and all(label.startswith("🧭 ") for label in labels)
        controller = client.app.state.openenv.web["controller"]
        assert controller.tabs.by_key(tab).episode.total > 0


def test_without_a_solver_here_a_presentation_plays_random_moves(monkeypatch):
    monkeypatch.delenv("OPENENV_AGENT", raising=False)
    with playground(monkeypatch) as client:
        controller = client.app.state.openenv.web["controller"]
        monkeypatch.setitem(controller.__dict__, "solver", None)  # as for an env that ships none
        tab = hot_seat(client)
        answer = client.post("/web/stage/autoplay", json={"tab": tab, "solver": True}).json()
        assert answer["ok"], answer
        assert not steps(client, tab)[0]["label"].startswith("🧭")


def test_a_shared_episode_is_presented_step_by_step_and_again(monkeypatch):
    """Presentation mode of a link (``?episode=`` with ``?present=``): each autoplay call with
    the link's token plays its next step (its reset first), logged with a 🎞; once over, it
    starts again; a damaged link is said."""
    from grid_world_env.server.environment import GridWorldEnvironment

    from openenv.web.episode.share import episode_token

    token = episode_token({"seed": 0}, [{"action": "DOWN"}] * 4 + [{"action": "RIGHT"}] * 4)
    with TestClient(create_app(GridWorldEnvironment)) as client:
        tab = client.post("/web/stage/open", json={}).json()["tab"]
        controller = client.app.state.openenv.web["controller"]
        for _round in range(2):
            first = client.post("/web/stage/autoplay", json={"tab": tab, "replay": token}).json()
            assert first["ok"] and steps(client, tab) == []  # its reset
            for _ in range(8):
                answer = client.post("/web/stage/autoplay", json={"tab": tab, "replay": token})
                assert answer.json()["ok"], answer.json()
            labels = [s["label"] for s in steps(client, tab)]
            assert len(labels) == 8 and all(label.startswith("🎞 ") for label in labels)
            episode = controller.tabs.by_key(tab).episode
            assert episode.done and episode.total > 0  # the recorded win, played again
        bad = client.post("/web/stage/autoplay", json={"tab": tab, "replay": "nonsense"}).json()
        assert not bad["ok"] and "damaged" in bad["error"]
