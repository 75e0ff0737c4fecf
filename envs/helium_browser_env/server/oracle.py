"""The Helium browser env's oracle: each task's scripted action sequence (``Episode.solution``,
in :mod:`.tasks`), played one Helium call per step.

Score: the best reward of the episode (1.0 once the task's check holds on the page, else 0.0).
The validator plays ``login``: the oracle writes the user and the password into their labelled
fields and clicks "Sign in" (3 steps). The floor is the no-op (the first example action); the
other example actions only click the page's buttons and links, which can never type the
credentials. Canaries: sign in with the wrong password, click "Sign in" with empty fields, and
go to a site outside the env's (refused, never run).
"""

from __future__ import annotations

from typing import Any

from openenv.validation.oracle import Canary, Oracle

TASK = "login"


class HeliumBrowserOracle(Oracle):
    score_range = (0.0, 1.0)
    tolerance = 0.0
    floor_margin = 1.0
    reset_options = {"task_name": TASK, "max_steps": 8}
    max_steps = 8
    probe_steps = 8

    def unavailable(self) -> str | None:
        try:
            import helium  # noqa: F401

            from helium_browser_env.server.browser import chrome_paths

            chrome_paths()
        except Exception as exc:  # the extra or Debian's chromium-driver is missing
            return f"the helium extra and Debian's chromium + chromium-driver are needed ({exc})"
        return None

    def act(self, env: Any, observation: Any) -> dict[str, Any] | None:
        if observation.done:
            return None
        solution = env._episode.solution
        step = env.state.step_count
        return {"command": solution[step]} if step < len(solution) else None

    def example_actions(self, env: Any, observation: Any) -> list[dict[str, Any]]:
        """The no-op first (the floor policy), then a click on each button or link the page
        shows: what a policy that cannot type tries."""
        texts = getattr(observation, "clickable", None) or []
        clicks = [{"command": f"click({text!r})"} for text in texts]
        return [{"command": "noop()"}, *clicks]

    def score(self, rewards: Any) -> float:
        return max((float(r) for r in rewards), default=0.0)

    def canaries(self) -> list[Canary]:
        return [
            Canary("wrong_password", "signs in with another password", _wrong_password),
            Canary.repeat(
                "empty_sign_in",
                "clicks Sign in without typing anything",
                {"command": "click('Sign in')"},
            ),
            Canary.repeat(
                "navigate_away",
                "leaves the site for the internet",
                {"command": "go_to('https://example.com/')"},
            ),
        ]


def _wrong_password(env: Any, observation: Any, step: int) -> dict[str, Any] | None:
    if observation.done:
        return None
    user = env._episode.cookie["user"]
    script = [
        {"command": f"write({user!r}, into='Username')"},
        {"command": "write('not-the-password', into='Password')"},
        {"command": "click('Sign in')"},
    ]
    return script[step] if step < len(script) else None


ORACLE = HeliumBrowserOracle()
