"""Web tasks on the env's own loopback site, in a headless Chromium driven by Helium.

Reset options: ``task_name`` (``login``, ``search``, ``cart``, ``report``; default
``HELIUM_TASK`` or ``login``), ``max_steps`` (1 to 100; default 20). The seed picks the task's
details (which user, which item, which quarter): the same seed, the same goal.

Action: :class:`~helium_browser_env.models.HeliumAction`, one Helium call per step written as
text (``click("Sign in")``; a command that does not read is a validation error). A ``go_to``
outside the site is refused (not run); a call that fails (no such button, a wait that times
out) is run and reported. Either way the observation says why in ``error`` with
``last_action_error=True``, it counts as a step, and the session goes on.

Reward: 1.0 on the step the task's check first holds on the page's state (read through
Selenium: the URL's path and ``<body>``'s ``data-*`` attributes), which ends the episode;
0.0 otherwise. ``max_steps`` steps without it end the episode (``metadata["truncated"]``).

Sessions: one Chromium and chromedriver per session (started on the first reset, quit on
close); the server caps sessions at ``MAX_CONCURRENT_ENVS`` (default 4, see ``app.py``).
"""

from __future__ import annotations

import os
import uuid
from typing import Annotated, Literal
from urllib.parse import urljoin, urlsplit

import numpy as np
from pydantic import Field

from helium_browser_env.models import (
    KEYS,
    HeliumAction,
    HeliumCall,
    HeliumObservation,
    HeliumState,
)
from helium_browser_env.server.banner import with_banner
from helium_browser_env.server.browser import VISIBLE_JS, Browser
from helium_browser_env.server.site import SITE, encode_task
from helium_browser_env.server.tasks import TASK_NAMES, TASKS, Episode, solved
from openenv.core import ActionChoice, Environment, Frame, InvalidAction
from openenv.core.frames import encode_frame, resolve_encoding

DEFAULT_TASK = "login"
DEFAULT_MAX_STEPS = 20
MAX_STEPS = 100
MAX_PAGE_TEXT = 4000
MAX_ERROR = 300
TaskName = Literal[TASK_NAMES]  # type: ignore[valid-type]


class HeliumBrowserEnvironment(Environment[HeliumAction, HeliumObservation, HeliumState]):
    """A task on the env's site in this session's own browser (module docstring)."""

    how_to_play = (
        'Read the goal under the page, then type one Helium call per step: click("Sign in"), '
        'write("alice", into="Username"), press(ENTER), go_to("/search"), '
        'wait_until("Report ready")'
    )
    CALL_TIMEOUT_S = 60.0
    STEP_KIND = "io"

    def __init__(self) -> None:
        super().__init__()
        self._browser: Browser | None = None
        self._episode: Episode | None = None
        self._last: HeliumObservation | None = None
        self._pixels: np.ndarray | None = None
        self._encoding = resolve_encoding(os.environ.get("OPENENV_FRAME_ENCODING") or "png")
        self._state = HeliumState()

    # -- the contract -------------------------------------------------------------------------

    def reset(
        self,
        seed: int | None = None,
        episode_id: str | None = None,
        task_name: TaskName | None = None,
        max_steps: Annotated[int, Field(ge=1, le=MAX_STEPS)] | None = None,
    ) -> HeliumObservation:
        task = task_name or os.environ.get("HELIUM_TASK", "").strip() or DEFAULT_TASK
        if task not in TASKS:
            raise InvalidAction(f"unknown task {task!r}; use one of {', '.join(TASK_NAMES)}")
        limit = max_steps or DEFAULT_MAX_STEPS
        episode = TASKS[task](self.rng)
        origin = SITE.start()
        browser = self._open_browser()
        driver = browser.driver
        browser.keep_one_window()
        driver.get(origin + "/")  # cookies are set on the site's own origin
        driver.delete_all_cookies()
        driver.add_cookie({"name": "task", "value": encode_task(episode.cookie), "path": "/"})
        driver.get(origin + episode.start)
        self._episode = episode
        self._state = HeliumState(
            episode_id=episode_id or str(uuid.uuid4()),
            task_name=task,
            goal=episode.goal,
            max_steps=limit,
        )
        return self._observe(reward=0.0, done=False)

    def step(self, action: HeliumAction) -> HeliumObservation:
        self._state.step_count += 1
        call = action.call()
        refusal = self._check(call)
        if refusal is None:
            refusal = self._run(call)
        if self._browser is None:  # the browser died under the action
            return self._last.model_copy(
                update={"last_action_error": True, "error": refusal, "reward": 0.0, "done": True}
            )
        return self._observe(reward=0.0, done=False, error=refusal or "")

    @property
    def state(self) -> HeliumState:
        return self._state

    def render(self) -> Frame | None:
        if self._pixels is None:
            return None
        error = self._last.error if self._last is not None else ""
        return Frame(with_banner(self._pixels, self._state.goal, error))

    def legal_actions(self) -> list[ActionChoice]:
        """None: every step is a command typed as text (the stage's action box); the page's
        buttons and links are in ``observation.clickable``."""
        return []

    def close(self) -> None:
        browser, self._browser = self._browser, None
        if browser is not None:
            browser.close()

    # -- acting ----------------------------------------------------------------------------------

    def _check(self, call: HeliumCall) -> str | None:
        """Why ``call`` is not run, or None (the command itself was checked by validation)."""
        if call.name == "go_to":
            parts = urlsplit(urljoin(SITE.origin + "/", call.text.strip()))
            if parts.scheme != "http" or parts.netloc != SITE.netloc:
                return (
                    f"refused: go_to({call.text.strip()[:100]!r}) leaves the env's site; this "
                    f"browser reaches only {SITE.origin} (give a path such as '/search')"
                )
        return None

    def _run(self, call: HeliumCall) -> str | None:
        """Run ``call`` through Helium; the reason it failed, or None."""
        from selenium.common.exceptions import TimeoutException, WebDriverException
        from selenium.webdriver.common.keys import Keys

        browser = self._browser
        name, text = call.name, call.text
        try:
            if name == "go_to":
                browser.go_to(urljoin(SITE.origin + "/", text.strip()))
            elif name == "click":
                browser.click(text)
            elif name == "write":
                browser.write(text, call.into)
            elif name == "press":
                browser.press(getattr(Keys, text.upper()) if text.upper() in KEYS else text)
            elif name in ("scroll_down", "scroll_up"):
                browser.scroll(call.pixels if name == "scroll_down" else -call.pixels)
            elif name == "wait_until":
                browser.wait_until_text(text, call.timeout_s)
            browser.keep_one_window()
        except LookupError:
            if name == "write":
                where = f"labelled {call.into[:80]!r}" if call.into else "focused"
                return f"write failed: no field {where} on the page"
            return f"{name} failed: no button or link {text[:80]!r} on the page"
        except TimeoutException:
            if name == "wait_until":
                return f"wait_until: {text[:80]!r} did not appear within {call.timeout_s:g} s"
            return f"{name} timed out (the page did not answer)"
        except WebDriverException as exc:
            if self._browser is not None and not self._browser.alive():
                self.close()
                return f"the browser stopped ({_first_line(exc)}); reset to start a new one"
            return f"{name} failed: {_first_line(exc)}"
        return None

    # -- observing -------------------------------------------------------------------------------

    def _observe(self, *, reward: float, done: bool, error: str = "") -> HeliumObservation:
        browser, episode = self._browser, self._episode
        for _ in range(3):  # a page read while the next one loads is read again
            browser.settle()
            page = browser.script(VISIBLE_JS) or {}
            pixels = browser.screenshot()
            if browser.where()[:2] == [page.get("url"), page.get("doc")]:
                break
        if not self._state.solved and solved(episode, page):
            self._state.solved, reward, done = True, 1.0, True
        truncated = not done and self._state.step_count >= self._state.max_steps
        url = str(page.get("url") or "")
        self._state.url = url
        self._pixels = pixels
        self._last = HeliumObservation(
            goal=episode.goal,
            url=url,
            title=str(page.get("title") or "")[:200],
            text=_bounded(str(page.get("text") or ""), MAX_PAGE_TEXT),
            clickable=[str(t)[:100] for t in page.get("clickable") or []],
            screenshot=encode_frame(pixels, self._encoding),
            screenshot_shape=list(pixels.shape),
            last_action_error=bool(error),
            error=error[:MAX_ERROR],
            reward=reward,
            done=done or truncated,
            metadata={"task": episode.task, "truncated": truncated, "solved": self._state.solved},
        )
        return self._last

    def _open_browser(self) -> Browser:
        if self._browser is not None and not self._browser.alive():
            self.close()
        if self._browser is None:
            self._browser = Browser(SITE.netloc)
        return self._browser


def _first_line(exc: Exception) -> str:
    text = getattr(exc, "msg", None) or str(exc)
    return " ".join(str(text).strip().splitlines()[:1])[:200] or type(exc).__name__


def _bounded(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[:limit] + f"\n… ({len(text) - limit} more)"
