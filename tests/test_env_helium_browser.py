"""The Helium browser env over the wire: every task is solved by its scripted Helium calls in a
real headless Chromium (Debian's, through Debian's chromedriver); the same seed gives the same
page; commands that do not read, elements that are not there and sites other than the env's
own are reported with the reason and the session goes on; the browser reaches nothing but the
env's loopback site."""

from __future__ import annotations

import os
import urllib.request

import numpy as np
import pytest

pytest.importorskip("helium")
if not os.path.isfile("/usr/bin/chromedriver"):
    pytest.skip("Debian's chromium-driver is not installed", allow_module_level=True)

from helium_browser_env import HeliumAction, HeliumBrowserEnv
from helium_browser_env.models import parse_command
from helium_browser_env.server.tasks import TASK_NAMES

from openenv.core import ClientError
from tests.conftest import env_fixtures

url, _ = env_fixtures("helium_browser_env.server.app:app", HeliumBrowserEnv)


@pytest.fixture(scope="module")
def env(url):
    """One connection (one browser) for the module: every test starts with its own reset."""
    with HeliumBrowserEnv(base_url=url).sync() as client:
        yield client


@pytest.fixture(scope="module")
def environment():
    """An environment in this process, to read what the wire does not carry (the solution)."""
    from helium_browser_env.server.environment import HeliumBrowserEnvironment

    environment = HeliumBrowserEnvironment()
    yield environment
    environment.close()


def act(env, command: str):
    return env.step(HeliumAction(command=command))


def test_sign_in_over_the_wire_earns_the_reward(env):
    first = env.reset(seed=1, task_name="login").observation
    user, password = first.goal.removeprefix("Sign in as ").rstrip(".").split(" with the password ")
    assert first.url.endswith("/login") and first.title == "Sign in"
    assert first.clickable == ["Sign in"] and "Username" in first.text
    pixels = first.screenshot_array()
    assert pixels.shape == tuple(first.screenshot_shape) == (600, 960, 3)
    assert pixels.std() > 0  # a page, not a blank frame
    typed = env.step(HeliumAction.write(user, into="Username"))
    assert typed.reward == 0.0 and not typed.done and not typed.observation.last_action_error
    env.step(HeliumAction.write(password, into="Password"))
    done = env.step(HeliumAction.click("Sign in"))
    assert done.reward == 1.0 and done.done
    obs = done.observation
    assert obs.url.endswith("/account") and f"Welcome, {user}!" in obs.text
    assert obs.metadata["solved"] and not obs.metadata["truncated"]
    state = env.state()
    assert state.task_name == "login" and state.step_count == 3 and state.solved
    assert state.url.endswith("/account")


def test_a_wrong_password_earns_nothing(env):
    first = env.reset(seed=1, task_name="login").observation
    user = first.goal.split()[3]
    env.step(HeliumAction.write(user, into="Username"))
    env.step(HeliumAction.write("guess", into="Password"))
    result = env.step(HeliumAction.click("Sign in"))
    assert result.reward == 0.0 and not result.done
    assert "Wrong username or password." in result.observation.text


@pytest.mark.parametrize("task", TASK_NAMES)
def test_every_task_is_solved_by_its_script(environment, task):
    from helium_browser_env.server.oracle import ORACLE

    obs = environment.reset(seed=5, task_name=task)
    rewards = []
    while (action := ORACLE.act(environment, obs)) is not None:
        obs = environment.step(HeliumAction(**action))
        assert not obs.last_action_error, obs.error
        rewards.append(obs.reward)
    assert rewards[-1] == 1.0 and obs.done and sum(rewards) == 1.0


def test_the_report_needs_the_wait(environment):
    obs = environment.reset(seed=2, task_name="report")
    quarter = obs.goal.split()[2]
    environment.step(HeliumAction.click(f"Generate {quarter} report"))
    early = environment.step(HeliumAction.click("Download report"))  # hidden for 2.5 s yet
    assert early.last_action_error and "no button or link 'Download report'" in early.error
    environment.step(HeliumAction.wait_until("Report ready", timeout_s=10))
    assert environment.step(HeliumAction.click("Download report")).reward == 1.0


def test_the_cart_must_hold_exactly_the_goal(environment):
    obs = environment.reset(seed=4, task_name="cart")
    first_add = next(c for c in obs.clickable if c.startswith("Add "))
    for command in [f"click({first_add!r})", *environment._episode.solution]:
        obs = environment.step(HeliumAction(command=command))
    # One more of something than asked: the order is placed, the task is not done.
    assert obs.url.endswith("/order") and "Order placed." in obs.text
    assert obs.reward == 0.0 and not obs.done


def test_the_same_seed_gives_the_same_page(environment):
    a = environment.reset(seed=11, task_name="search")
    b = environment.reset(seed=11, task_name="search")
    assert a.goal == b.goal and a.text == b.text
    assert np.array_equal(a.screenshot_array(), b.screenshot_array())
    goals = {environment.reset(seed=s, task_name="login").goal for s in range(8)}
    assert len(goals) > 1


@pytest.mark.parametrize(
    ("command", "reason"),
    [
        ('go_to("https://example.com/")', "refused: go_to('https://example.com/') leaves"),
        ('go_to("//example.com/x")', "leaves the env's site"),
        ('go_to("file:///etc/passwd")', "leaves the env's site"),
        ('go_to("http://127.0.0.1:22/")', "leaves the env's site"),
        ('click("No such button")', "no button or link 'No such button' on the page"),
        ('write("x", into="Nope")', "no field labelled 'Nope' on the page"),
        ('wait_until("never shown", timeout_secs=1)', "did not appear within 1 s"),
    ],
)
def test_a_failed_or_refused_call_is_reported_and_the_session_goes_on(env, command, reason):
    first = env.reset(seed=1, task_name="login").observation
    bad = act(env, command)
    assert bad.observation.last_action_error and reason in bad.observation.error
    assert not bad.done and bad.reward == 0.0
    assert bad.observation.url == first.url  # nothing else was opened
    assert not act(env, "noop()").observation.last_action_error


@pytest.mark.parametrize(
    ("command", "reason"),
    [
        ("__import__('os')", "unknown action '__import__'"),
        ("__import__('os').system('id')", "write one call"),
        ("click(open('/etc/passwd').read())", "arguments must be literals"),
        ("press('F13')", "unknown key 'F13'"),
        ("scroll_down(99999)", "from 1 to 2000"),
        ("click('a', 'b')", "at most 1 positional"),
        ("wait_until('x', timeout_secs=60)", "from 1 to 10 seconds"),
        ("click('Sign in'); click('x')", "not a call"),
    ],
)
def test_a_command_that_does_not_read_is_a_clear_error(env, command, reason):
    with pytest.raises(ValueError, match=reason.replace("(", r"\(")):
        parse_command(command)
    env.reset(seed=1, task_name="login")
    with pytest.raises(ClientError) as refused:  # sent as another client could send it
        env.step(HeliumAction.model_construct(command=command))
    assert refused.value.server_code == "VALIDATION_ERROR"
    assert not act(env, "noop()").observation.last_action_error


def test_commands_read_as_helium_writes_them():
    assert parse_command('write("alice", into="Username")').into == "Username"
    assert parse_command("press(ENTER)").text == "ENTER"
    assert parse_command("press(Keys.TAB)").text == "TAB"
    assert parse_command("scroll_up(num_pixels=50)").pixels == 50
    assert HeliumAction.write("it's", into="A").call().text == "it's"
    assert HeliumAction.press("enter").command == "press(ENTER)"


def test_the_browser_reaches_only_the_site(environment, url):
    """The page itself cannot leave: a request to another host, or to another port of loopback
    (here the env's own API server), meets the site's proxy, which answers 403."""
    from helium_browser_env.server.site import SITE

    environment.reset(seed=1, task_name="login")
    driver = environment._browser.driver
    for target in ("http://example.com/", url + "/health", "http://localhost:8000/"):
        driver.get(target)
        assert "Blocked" in driver.title or "Blocked" in driver.page_source, target
    # The proxy itself answers only for the site, whoever asks.
    proxy = urllib.request.ProxyHandler({"http": SITE.origin})
    with pytest.raises(urllib.error.HTTPError) as blocked:
        urllib.request.build_opener(proxy).open("http://example.com/", timeout=10)
    assert blocked.value.code == 403


def test_unknown_task_and_the_step_limit(env):
    with pytest.raises(ClientError, match="task_name"):
        env.reset(task_name="no-such-task")
    env.reset(seed=1, task_name="search", max_steps=2)
    assert not act(env, "noop()").done
    last = act(env, "scroll_down(100)")
    assert last.done and last.observation.metadata["truncated"] and last.reward == 0.0


def test_check_env_passes():
    from helium_browser_env.server.environment import HeliumBrowserEnvironment
    from helium_browser_env.server.oracle import ORACLE

    from openenv.testing import check_env

    environment = HeliumBrowserEnvironment()
    try:

        def pick(env, rng):
            return rng.choice(ORACLE.example_actions(env, env._last))

        notes = check_env(environment, reset_kwargs={"task_name": "cart"}, steps=4, actions=pick)
        assert notes == [] or all("legal" in n or "slider" in n for n in notes), notes
    finally:
        environment.close()


def test_close_quits_the_browser():
    from helium_browser_env.server.environment import HeliumBrowserEnvironment

    environment = HeliumBrowserEnvironment()
    environment.reset(seed=1, task_name="login")
    service = environment._browser.driver.service
    profile = environment._browser._profile
    environment.close()
    assert service.process.poll() is not None and not os.path.exists(profile)
