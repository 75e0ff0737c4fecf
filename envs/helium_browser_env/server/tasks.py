"""The tasks: a goal drawn from the seed, the page it starts on, the check on the page's state,
and the scripted solution (the oracle's action sequence).

A check reads the page through Selenium (``browser.VISIBLE_JS``: the URL's path and the
``data-*`` attributes the site puts on ``<body>``, which the page's JavaScript may change) and
compares it with the episode's goal; the reward is 1 the first time it holds.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from helium_browser_env.server.site import CATALOGUE, PRODUCTS, QUARTERS

USERS = (
    ("alice", "tulip-42"),
    ("bruno", "maple-17"),
    ("chen", "river-8"),
    ("dara", "cobalt-31"),
    ("emeka", "willow-5"),
)
SEARCHES = (  # (word to search, item to open): each word has several hits
    ("lamp", "floor-lamp"),
    ("lamp", "violet-lamp"),
    ("chair", "camp-chair"),
    ("chair", "office-chair"),
    ("mug", "travel-mug"),
    ("table", "side-table"),
)


@dataclass(frozen=True)
class Episode:
    """One task instance: what the visitor reads, where it starts, what the site knows."""

    task: str
    goal: str
    start: str  # a path on the site
    cookie: dict[str, Any]  # the site's ``task`` cookie
    target: dict[str, str]  # what the check compares
    solution: list[str] = field(default_factory=list)  # the oracle's commands


def login(rng: random.Random) -> Episode:
    user, password = rng.choice(USERS)
    return Episode(
        task="login",
        goal=f"Sign in as {user} with the password {password}.",
        start="/login",
        cookie={"user": user, "password": password},
        target={"path": "/account", "user": user},
        solution=[
            f"write({user!r}, into='Username')",
            f"write({password!r}, into='Password')",
            "click('Sign in')",
        ],
    )


def search(rng: random.Random) -> Episode:
    word, slug = rng.choice(SEARCHES)
    name = CATALOGUE[slug][0]
    return Episode(
        task="search",
        goal=f'Search the catalogue for "{word}" and open the page of the {name}.',
        start="/search",
        cookie={},
        target={"path": f"/item/{slug}", "item": slug},
        solution=[
            f"write({word!r}, into='Search')",
            "press(ENTER)",
            f"click({name!r})",
        ],
    )


def cart(rng: random.Random) -> Episode:
    first, second = rng.sample(sorted(PRODUCTS), 2)
    counts = {first: rng.randint(1, 3), second: 1}
    wanted = " and ".join(f"{n} x {PRODUCTS[k][0]}" for k, n in sorted(counts.items()))
    clicks = [f"click('Add {PRODUCTS[k][0]}')" for k, n in sorted(counts.items()) for _ in range(n)]
    order = ".".join(f"{k}-{n}" for k, n in sorted(counts.items()))
    return Episode(
        task="cart",
        goal=f"Buy exactly {wanted}: add them to the cart, then check out.",
        start="/shop",
        cookie={},
        target={"path": "/order", "order": order},
        solution=[*clicks, "click('Check out')"],
    )


def report(rng: random.Random) -> Episode:
    quarter = rng.choice(QUARTERS)
    return Episode(
        task="report",
        goal=f"Generate the {quarter} report, wait until it is ready, then download it.",
        start="/report",
        cookie={},
        target={"path": "/report", "downloaded": quarter},
        solution=[
            f"click('Generate {quarter} report')",
            "wait_until('Report ready', timeout_secs=10)",
            "click('Download report')",
        ],
    )


TASKS: dict[str, Callable[[random.Random], Episode]] = {
    "login": login,
    "search": search,
    "cart": cart,
    "report": report,
}
TASK_NAMES = tuple(TASKS)


def solved(episode: Episode, state: dict[str, Any]) -> bool:
    """Whether the page's state (``path`` and ``data`` of ``browser.VISIBLE_JS``'s result)
    meets the episode's target."""
    data = state.get("data") or {}
    for key, want in episode.target.items():
        have = state.get("path") if key == "path" else data.get(key)
        if have != want:
            return False
    return True
