"""Which BrowserGym action strings this server runs, checked before the browser sees them.

BrowserGym turns an action string into Python calls of its action functions (its parser takes
only literal arguments) and ``exec``s them against the page. The set here is BrowserGym's
``bid``, ``coord``, ``nav``, ``tab``, ``chat`` and ``infeas`` subsets, less the two file-upload
actions (they would hand the server's files to the page). ``goto`` may open only the task
pages; the browser context blocks every other request as well (see ``browser.guard``).
"""

from __future__ import annotations

import functools
from typing import Any

from browsergym.core.action import functions as fn
from browsergym.core.action.highlevel import HighLevelActionSet
from browsergym.core.action.parsers import NamedArgument, highlevel_action_parser

from browsergym_env.server.pages import MINIWOB_URL, MiniwobPages

ACTIONS = [
    fn.noop,
    # bid: an element of the accessibility tree
    fn.click,
    fn.dblclick,
    fn.fill,
    fn.clear,
    fn.hover,
    fn.press,
    fn.focus,
    fn.select_option,
    fn.drag_and_drop,
    fn.scroll,
    # coord: pixels of the screenshot
    fn.mouse_click,
    fn.mouse_dblclick,
    fn.mouse_move,
    fn.mouse_down,
    fn.mouse_up,
    fn.mouse_drag_and_drop,
    fn.scroll_at,
    fn.keyboard_press,
    fn.keyboard_type,
    fn.keyboard_insert_text,
    fn.keyboard_down,
    fn.keyboard_up,
    # nav, tab, chat
    fn.goto,
    fn.go_back,
    fn.go_forward,
    fn.new_tab,
    fn.tab_close,
    fn.tab_focus,
    fn.send_msg_to_user,
    fn.report_infeasible,
]
NAMES = tuple(f.__name__ for f in ACTIONS)
MAX_CALLS = 10  # one action string may chain a few calls, as BrowserGym allows
MAX_NESTING = 8  # brackets deep: the parser recurses on them
MAX_TABS = 4  # open pages per session: each is a renderer's memory


@functools.cache
def action_set() -> HighLevelActionSet:
    """The action set BrowserGym maps our action strings with (demo animations off)."""
    return HighLevelActionSet(
        subsets=["custom"], custom_actions=ACTIONS, multiaction=True, demo_mode="off"
    )


def check_action(action_str: str, pages: MiniwobPages, open_tabs: int = 1) -> str | None:
    """Why ``action_str`` is refused, or ``None`` when it may run (``open_tabs``: the pages
    the session has open now)."""
    if _nesting(action_str) > MAX_NESTING:
        return f"the action nests brackets more than {MAX_NESTING} deep"
    try:
        matches = highlevel_action_parser.search_string(action_str).as_list()
        calls = [call for match in matches for call in match]
    except Exception as exc:  # pyparsing's errors carry the position
        return f"could not parse the action: {exc}"
    if not calls:
        return (
            f"no action found in {action_str[:80]!r}: write a call such as click('12'), "
            "fill('5', 'hello') or mouse_click(40, 60)"
        )
    if len(calls) > MAX_CALLS:
        return f"{len(calls)} calls in one action; at most {MAX_CALLS}"
    if open_tabs + sum(name == "new_tab" for name, _ in calls) > MAX_TABS:
        return f"at most {MAX_TABS} tabs may be open: close one with tab_close() first"
    for name, args in calls:
        refusal = _check_call(name, args, pages)
        if refusal:
            return refusal
    return None


def _check_call(name: str, args: list[Any], pages: MiniwobPages) -> str | None:
    if name not in NAMES:
        return f"unknown action {name!r}; the actions are: {', '.join(NAMES)}"
    if name == "goto":
        url = _argument(args, 0, "url")
        if not isinstance(url, str) or not pages.is_task_url(url):
            return (
                f"goto({url!r}) refused: only the MiniWoB task pages ({MINIWOB_URL}<task>.html) "
                "can be opened here"
            )
    return None


def _argument(args: list[Any], index: int, name: str) -> Any:
    named = [a.value for a in args if isinstance(a, NamedArgument) and a.name == name]
    if named:
        return named[0]
    positional = [a for a in args if not isinstance(a, NamedArgument)]
    return positional[index] if len(positional) > index else None


def _nesting(text: str) -> int:
    depth = deepest = 0
    for char in text:
        if char in "([{":
            depth += 1
            deepest = max(deepest, depth)
        elif char in ")]}":
            depth = max(0, depth - 1)
    return deepest
