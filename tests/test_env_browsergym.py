"""BrowserGym's MiniWoB tasks over the wire: scripted episodes solve them, bad actions are
refused with a reason and the session goes on, nothing outside the task pages can be opened."""

from __future__ import annotations

import re

import pytest

pytest.importorskip("browsergym.miniwob")

from browsergym_env import BrowserGymAction, BrowserGymEnv

from openenv.core import ClientError
from tests.conftest import env_fixtures

url, _ = env_fixtures("browsergym_env.server.app:app", BrowserGymEnv)


@pytest.fixture(scope="module")
def env(url):
    """One connection for the module: every test starts with its own reset."""
    with BrowserGymEnv(base_url=url).sync() as client:
        yield client


def act(env, action_str: str):
    return env.step(BrowserGymAction(action_str=action_str))


def bid_of(axtree: str, role: str) -> str:
    """The [bid] of the first element with that role in an accessibility tree."""
    return re.search(rf"\[(\w+)\] {role}\b", axtree).group(1)


def test_click_test_is_solved_by_clicking_the_button(env):
    first = env.reset(seed=1, task_name="click-test").observation
    assert first.goal == "Click the button."
    assert first.url.endswith("/miniwob/click-test.html")
    assert first.screenshot_array().shape == tuple(first.screenshot_shape)
    assert first.screenshot_shape[2] == 3 and first.text == first.axtree_txt
    assert "button 'Click Me!'" in first.axtree_txt and "<button" in first.pruned_html
    result = act(env, f"click('{bid_of(first.axtree_txt, 'button')}')")
    assert result.reward == 1.0 and result.done
    assert not result.observation.last_action_error and result.observation.error == ""
    meta = result.observation.metadata
    assert meta["browsergym_info"]["task_info"]["RAW_REWARD_GLOBAL"] == 1
    assert meta["browsergym_obs"]["last_action"].startswith("click(")
    state = env.state()
    assert state.task_name == "click-test" and state.step_count == 1 and state.cum_reward == 1.0
    assert state.goal == "Click the button."


def test_enter_text_is_solved_by_filling_the_field_and_submitting(env):
    first = env.reset(seed=7, task_name="enter-text").observation
    word = re.search(r'Enter "(.+)" into', first.goal).group(1)
    filled = act(env, f"fill('{bid_of(first.axtree_txt, 'textbox')}', {word!r})")
    assert not filled.done and filled.reward == 0.0 and not filled.observation.last_action_error
    done = act(env, f"click('{bid_of(first.axtree_txt, 'button')}')")
    assert done.reward == 1.0 and done.done


def test_the_same_seed_gives_the_same_goal(env):
    goals = {env.reset(seed=11, task_name="enter-text").observation.goal for _ in range(2)}
    assert len(goals) == 1
    assert env.reset(seed=12, task_name="enter-text").observation.goal not in goals


@pytest.mark.parametrize(
    ("action_str", "reason"),
    [
        ("nonsense", "no action found"),
        ("os_system('ls')", "unknown action 'os_system'"),
        ("upload_file('13', '/etc/passwd')", "unknown action 'upload_file'"),
        ("click('9999')", 'Could not find element with bid "9999"'),
        ("goto('file:///etc/passwd')", "refused"),
        ("goto('http://127.0.0.1:22/')", "refused"),
        ("goto(url='http://miniwob.invalid/../../etc/passwd')", "refused"),
    ],
)
def test_a_bad_action_is_reported_and_the_session_goes_on(env, action_str, reason):
    first = env.reset(seed=1, task_name="click-test").observation
    bad = act(env, action_str)
    assert bad.observation.last_action_error and reason in bad.observation.error
    assert not bad.done and bad.reward == 0.0
    assert bad.observation.url == first.url  # nothing else was opened
    solved = act(env, f"click('{bid_of(first.axtree_txt, 'button')}')")
    assert solved.reward == 1.0


def test_tabs_are_bounded(env):
    env.reset(seed=1, task_name="click-test")
    refused = act(env, "new_tab() " * 4)
    assert refused.observation.last_action_error and "at most 4 tabs" in refused.observation.error
    assert not refused.done
    # One more tab is a page the task does not know: MiniWoB ends the episode (BrowserGym's rule).
    opened = act(env, "new_tab()")
    assert not opened.observation.last_action_error and opened.done and opened.reward == 0.0


def test_an_overlong_action_is_a_validation_error_and_the_session_goes_on(env):
    env.reset(seed=1, task_name="click-test")
    with pytest.raises(ClientError) as refused:
        # Built without the client's own check, as another client could send it.
        env.step(BrowserGymAction.model_construct(action_str="noop()" + " " * 5000))
    assert refused.value.server_code == "VALIDATION_ERROR"
    assert not act(env, "noop()").observation.last_action_error


def test_unknown_tasks_and_other_benchmarks_are_refused_with_the_reason(env, monkeypatch):
    with pytest.raises(ClientError, match="no-such-task"):
        env.reset(task_name="no-such-task")
    monkeypatch.setenv("BROWSERGYM_BENCHMARK", "webarena")  # the server runs in this process
    with pytest.raises(ClientError, match="needs its backend web sites"):
        env.reset(task_name="click-test")
    monkeypatch.delenv("BROWSERGYM_BENCHMARK")
    assert env.reset(task_name="click-test").observation.goal


def test_the_step_limit_truncates_the_episode(env):
    env.reset(seed=1, task_name="click-test", max_steps=2)
    assert not act(env, "noop()").done
    last = act(env, "noop()")
    assert last.done and last.observation.metadata["truncated"]


@pytest.fixture(scope="module")
def environment():
    """An environment in this process, to look at what the wire does not show."""
    from browsergym_env.server.environment import BrowserGymEnvironment

    environment = BrowserGymEnvironment()
    yield environment
    environment.close()


def on_page(environment, fn):
    """``fn(page)`` on the session's own thread (Playwright objects live there)."""
    return environment._thread.run(lambda: fn(environment._bg.page), 30)


def test_a_click_on_the_frame_clicks_the_page_there(environment):
    obs = environment.reset(seed=1, task_name="click-test")
    frame = environment.render()
    height, width = obs.screenshot_shape[:2]
    assert frame.shape[1] == width and frame.shape[0] > height  # the goal is written below
    assert (frame.pixels[:height] == obs.screenshot_array()).all()
    assert frame.click == {"action_str": "mouse_click({x}, {y})"}
    assert frame.keys == {"action_str": "keyboard_press({key})"}
    assert [c.label for c in environment.legal_actions()] == ["Click Me! (button)"]
    box = on_page(environment, lambda page: page.locator("#subbtn").bounding_box())
    scale = frame.shape[1] / on_page(environment, lambda page: page.viewport_size["width"])
    x, y = (box["x"] + box["width"] / 2) * scale, (box["y"] + box["height"] / 2) * scale
    clicked = environment.step(
        BrowserGymAction(**{k: v.format(x=round(x), y=round(y)) for k, v in frame.click.items()})
    )
    assert clicked.reward == 1.0 and clicked.done


def test_a_typed_key_reaches_the_page(environment):
    obs = environment.reset(seed=7, task_name="enter-text")
    field = bid_of(obs.axtree_txt, "textbox")
    environment.step(BrowserGymAction(action_str=f"click('{field}')"))
    key = environment.render().keys["action_str"].format(key='"x"')  # as the playground sends
    typed = environment.step(BrowserGymAction(action_str=key))
    assert not typed.last_action_error
    assert on_page(environment, lambda page: page.input_value("input")) == "x"


@pytest.mark.parametrize(
    "target", ["file:///etc/passwd", "http://127.0.0.1:1/", "https://example.com/"]
)
def test_the_browser_context_blocks_everything_but_the_task_pages(environment, target):
    """The context-level half of the rule, below the action check: even a navigation the
    action check never saw is aborted by the browser."""
    environment.reset(seed=1, task_name="click-test")
    with pytest.raises(Exception, match="ERR_BLOCKED_BY_CLIENT"):
        on_page(environment, lambda page: page.goto(target))


def test_a_crashed_page_is_reported_and_a_reset_starts_afresh(environment):
    environment.reset(seed=1, task_name="click-test")
    with pytest.raises(Exception, match="ERR_ABORTED"):  # the renderer dies under the load
        on_page(environment, lambda page: page.goto("chrome://crash", timeout=10_000))
    crashed = environment.step(BrowserGymAction(action_str="noop()"))
    assert crashed.last_action_error and crashed.done and "crash" in crashed.error
    again = environment.reset(seed=1, task_name="click-test")
    assert again.goal == "Click the button." and not again.last_action_error


def test_a_reset_after_the_browser_died_starts_it_again(environment):
    from browsergym_env.server.browser import SERVER

    environment.reset(seed=1, task_name="click-test")
    SERVER.stop()  # the whole browser goes, as if it crashed
    lost = environment.step(BrowserGymAction(action_str="noop()"))
    assert lost.last_action_error and lost.done
    again = environment.reset(seed=1, task_name="click-test")
    assert again.goal == "Click the button." and not again.last_action_error


def test_a_session_stuck_in_the_browser_does_not_hold_up_another(environment):
    """Each session has its own thread and connection: while one is blocked (here on purpose,
    on its own thread), another resets and steps."""
    import threading

    from browsergym_env.server.environment import BrowserGymEnvironment

    environment.reset(seed=1, task_name="click-test")
    release = threading.Event()
    stuck = environment._thread.submit(lambda: release.wait(120))
    other = BrowserGymEnvironment()
    try:
        obs = other.reset(seed=1, task_name="click-test")
        bid = bid_of(obs.axtree_txt, "button")
        assert other.step(BrowserGymAction(action_str=f"click('{bid}')")).reward == 1.0
        assert not stuck.done()
    finally:
        release.set()
        other.close()
    assert stuck.result(30)


def test_the_oracle_types_the_goal_word_and_submits_where_clicks_alone_score_nothing():
    from browsergym_env.server.environment import BrowserGymEnvironment
    from browsergym_env.server.oracle import ORACLE

    from openenv.validation.play import null_chooser, oracle_chooser, play, random_chooser

    local = BrowserGymEnvironment()
    options = dict(ORACLE.reset_options)
    try:
        best = play(local, "oracle", "oracle", oracle_chooser(ORACLE), seed=3, options=options,
                    budget=ORACLE.max_steps)  # fmt: skip
        clicks = play(local, "random", "random", random_chooser(ORACLE, 3), seed=3,
                      options=options, budget=ORACLE.max_steps)  # fmt: skip
        idle = play(local, "null", "null", null_chooser(ORACLE), seed=3, options=options,
                    budget=ORACLE.max_steps)  # fmt: skip
    finally:
        local.close()
    assert best.error is None and best.done
    assert [s.action["action_str"].split("(")[0] for s in best.steps] == ["fill", "click"]
    assert best.rewards[-1] == 1.0 and ORACLE.score_episode(best) == 1.0
    assert ORACLE.score_episode(clicks) == 0.0 and ORACLE.score_episode(idle) == 0.0
    assert all(s.action["action_str"].startswith("click(") for s in clicks.steps + idle.steps)
