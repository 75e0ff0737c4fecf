"""The playground in front of servers written with the reference ``openenv==0.10.0`` package
(``tests/compat/ref_envs``, in its own virtualenv): what the rules draw from their schemas and
observations, how their refusals come back, and their tools. Without a browser; the browser
tests are in ``test_remote_browser.py``."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from typing import Any

import pytest

from openenv.core.errors import InvalidAction, OpenEnvError
from openenv.core.serialization import model_from_wire
from openenv.core.views import Board, Frame, Text
from openenv.web.page.tools import tools_of
from openenv.web.remote.environment import RemoteEnvironment, remote_environment
from openenv.web.remote.models import action_model
from openenv.web.remote.probe import Description, Remote, describe
from tests.compat.ref_servers import MODULES, ref_server

pytestmark = pytest.mark.compat


@pytest.fixture(scope="module")
def servers() -> Iterator[dict[str, str]]:
    with contextlib_exit_stack() as stack:
        yield {m: stack.enter_context(ref_server(m)).url for m in MODULES}


def contextlib_exit_stack() -> Any:
    import contextlib

    return contextlib.ExitStack()


def play(url: str, script: Any) -> Any:
    async def run() -> Any:
        description = await describe(Remote.of(url))
        env = remote_environment(description)()
        try:
            return await script(description, env, action_model(description.action_schema))
        finally:
            await env.close_async()

    return asyncio.run(run())


def test_reference_servers_are_not_taken_for_ours_and_get_a_free_form_reset(servers):
    async def script(description: Description, env: RemoteEnvironment, _: Any) -> None:
        assert not description.ours and description.reset_schema is None
        options = type(env).reset_schema()["properties"]
        assert list(options) == ["options"] and options["options"]["x-openenv-spread"]

    play(servers["literal_grid"], script)


def test_a_literal_action_becomes_one_button_per_value_with_arrow_keys(servers):
    async def script(_: Any, env: RemoteEnvironment, action: Any) -> None:
        await env.reset_async(seed=0)
        legal = env.legal_actions()
        assert [(c.label, c.key) for c in legal] == [
            ("up", "ArrowUp"), ("down", "ArrowDown"), ("left", "ArrowLeft"),
            ("right", "ArrowRight"),
        ]  # fmt: skip
        view = env.render()
        assert isinstance(view, Text) and "[board]\nA....\n" in view.text
        obs = await env.step_async(action(**legal[1].action))
        assert obs.reward == pytest.approx(-0.1) and obs.position == [1, 0]
        with pytest.raises(InvalidAction, match="up"):  # refused here, before the remote
            model_from_wire({"move": "sideways"}, action)

    play(servers["literal_grid"], script)


def test_a_flat_screen_with_its_shape_is_a_frame_and_legal_ids_are_named_buttons(servers):
    async def script(_: Any, env: RemoteEnvironment, action: Any) -> None:
        await env.reset_async(seed=4)
        frame = env.render()
        assert isinstance(frame, Frame) and frame.shape == (24, 32)
        assert [c.label for c in env.legal_actions()] == ["NOOP", "LEFT", "RIGHT"]
        rewards = []
        for _ in range(23 * 3):
            obs = await env.step_async(action(action_id=0))
            rewards.append(obs.reward)
            if obs.done:
                break
        assert obs.done and sorted(set(rewards) - {0.0}) <= [-1.0, 1.0]
        with pytest.raises(OpenEnvError, match="episode is over"):
            await env.step_async(action(action_id=0))

    play(servers["frames"], script)


def test_the_remotes_own_refusal_comes_back_and_the_session_goes_on(servers):
    async def script(_: Any, env: RemoteEnvironment, action: Any) -> None:
        await env.reset_async(seed=4)
        with pytest.raises(OpenEnvError) as refused:
            await env.step_async(action(action_id=7))
        assert "not one of the legal actions" in str(refused.value.message)
        obs = await env.step_async(action(action_id=1))
        assert not obs.done

    play(servers["frames"], script)


def test_messages_and_prompt_are_text_and_a_fen_is_a_chess_board(servers):
    async def guess(_: Any, env: RemoteEnvironment, action: Any) -> None:
        await env.reset_async(seed=2)
        assert env.legal_actions() == []  # a free-text action: typed on the stage
        obs = await env.step_async(action(message="10"))
        text = env.render()
        assert isinstance(text, Text) and "assistant: 10" in text.text and "[prompt]" in text.text
        assert obs.messages[-1]["content"] in ("Higher.", "Lower.", "Correct!")

    play(servers["text"], guess)

    async def chess(_: Any, env: RemoteEnvironment, action: Any) -> None:
        await env.reset_async()
        board = env.render()
        assert isinstance(board, Board) and board.caption == "White to move"
        assert board.rows[7][4].glyph == "♔" and board.rows[7][4].label == "e1"
        assert "e2e4" in [c.label for c in env.legal_actions()]
        await env.step_async(action(move="e2e4"))
        after = env.render()
        assert after.rows[4][4].glyph == "♙"  # e4
        with pytest.raises(OpenEnvError, match="not legal"):
            await env.step_async(action(move="e4e6"))

    play(servers["chess_fen"], chess)


def test_a_reference_tool_env_lists_its_tools_and_a_call_is_a_step(servers):
    async def script(description: Description, env: RemoteEnvironment, action: Any) -> None:
        assert [t.name for t in tools_of(type(env))] == ["add", "remember", "recall"]
        assert description.tools[0].input_schema["properties"].keys() == {"a", "b"}
        await env.reset_async()
        obs = await env.step_async(
            action(type="call_tool", tool_name="add", arguments={"a": 2, "b": 3})
        )
        assert "5" in str(obs.model_dump())

    play(servers["mcp_tools"], script)
