"""Wire types of the Helium browser environment, shared by its client and its server.

Importing this module needs neither Helium nor Selenium: clients install the base package.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass

import numpy as np
from pydantic import Field, field_validator

from openenv.core import Action, Observation, State
from openenv.core.frames import FrameData, decode_frame

MAX_TEXT_CHARS = 500
MAX_LABEL_CHARS = 200
MAX_COMMAND_CHARS = 1000

ACTIONS = ("go_to", "click", "write", "press", "scroll_down", "scroll_up", "wait_until", "noop")
KEYS = (
    "ENTER",
    "TAB",
    "ESCAPE",
    "BACK_SPACE",
    "DELETE",
    "SPACE",
    "ARROW_UP",
    "ARROW_DOWN",
    "ARROW_LEFT",
    "ARROW_RIGHT",
    "HOME",
    "END",
    "PAGE_UP",
    "PAGE_DOWN",
)
COMMAND_HELP = (
    'One Helium call: go_to("/search"), click("Sign in"), write("alice", into="Username"), '
    'press(ENTER), scroll_down(300), scroll_up(300), wait_until("Report ready"), noop()'
)


@dataclass(frozen=True)
class HeliumCall:
    """A command, read: which call (``name``, one of :data:`ACTIONS`) and its arguments."""

    name: str
    text: str = ""
    into: str = ""
    pixels: int = 300
    timeout_s: float = 5.0


class HeliumAction(Action):
    """One Helium call per step, written as the call itself (``command``):

    ============================================  ===============================================
    ``go_to("/search")``                          open a page of the env's site (a path, or a URL
                                                  of the site; any other site is refused)
    ``click("Sign in")``                          click the button or link with that text
    ``write("alice", into="Username")``           type into the field with that label (without
                                                  ``into``: into the focused field)
    ``press(ENTER)``                              press a key (:data:`KEYS`) or one character
    ``scroll_down(300)`` / ``scroll_up(300)``     scroll by 1 to 2000 pixels
    ``wait_until("Report ready")``                wait (``timeout_secs=`` 1 to 10, default 5) for
                                                  a text to appear on the page
    ``noop()``                                    nothing: the page as it is now
    ============================================  ===============================================

    Only literals are read, nothing is evaluated. A command that does not read as one of these
    is refused by validation with the reason. The classmethods build commands with the quoting
    done: ``HeliumAction.write("alice", into="Username")``; :meth:`call` reads one back.
    """

    command: str = Field(min_length=1, max_length=MAX_COMMAND_CHARS, description=COMMAND_HELP)

    @field_validator("command")
    @classmethod
    def _readable(cls, command: str) -> str:
        parse_command(command)
        return command.strip()

    def call(self) -> HeliumCall:
        """The command, read."""
        return parse_command(self.command)

    @classmethod
    def go_to(cls, url: str) -> HeliumAction:
        return cls(command=f"go_to({url!r})")

    @classmethod
    def click(cls, text: str) -> HeliumAction:
        return cls(command=f"click({text!r})")

    @classmethod
    def write(cls, text: str, into: str = "") -> HeliumAction:
        return cls(command=f"write({text!r}, into={into!r})" if into else f"write({text!r})")

    @classmethod
    def press(cls, key: str) -> HeliumAction:
        return cls(command=f"press({key.upper()})" if key.upper() in KEYS else f"press({key!r})")

    @classmethod
    def scroll_down(cls, pixels: int = 300) -> HeliumAction:
        return cls(command=f"scroll_down({pixels!r})")

    @classmethod
    def scroll_up(cls, pixels: int = 300) -> HeliumAction:
        return cls(command=f"scroll_up({pixels!r})")

    @classmethod
    def wait_until(cls, text: str, timeout_s: float = 5.0) -> HeliumAction:
        return cls(command=f"wait_until({text!r}, timeout_secs={timeout_s!r})")

    @classmethod
    def noop(cls) -> HeliumAction:
        return cls(command="noop()")


def parse_command(command: str) -> HeliumCall:
    """``command`` read as one call of :class:`HeliumAction`'s table; ValueError says what is
    wrong (``ast`` reads it; only literals and key names are accepted, nothing is run)."""
    if len(command) > MAX_COMMAND_CHARS:
        raise ValueError(f"a command is at most {MAX_COMMAND_CHARS} characters")
    try:
        call = ast.parse(command.strip(), mode="eval").body
    except SyntaxError as exc:
        raise ValueError(f'not a call like click("Sign in") ({exc.msg})') from None
    if not isinstance(call, ast.Call) or not isinstance(call.func, ast.Name):
        raise ValueError('write one call, like click("Sign in")')
    name = call.func.id
    if name not in ACTIONS:
        raise ValueError(f"unknown action {name[:40]!r}; use one of {', '.join(ACTIONS)}")
    args = [_literal(a) for a in call.args]
    kwargs = {k.arg: _literal(k.value) for k in call.keywords if k.arg}
    if len(call.keywords) != len(kwargs):
        raise ValueError("**arguments are not accepted")
    allowed = {"write": {"into"}, "wait_until": {"timeout_secs"}}.get(name, set())
    if name in ("scroll_down", "scroll_up"):
        allowed = {"num_pixels"}
    if extra := set(kwargs) - allowed:
        raise ValueError(f"{name} takes no argument {sorted(extra)[0]!r}")
    most = {"noop": 0, "write": 2}.get(name, 1)
    if len(args) > most:
        raise ValueError(f"{name} takes at most {most} positional argument(s)")
    if name in ("scroll_down", "scroll_up"):
        pixels = args[0] if args else kwargs.get("num_pixels", 300)
        if isinstance(pixels, bool) or not isinstance(pixels, int) or not 1 <= pixels <= 2000:
            raise ValueError(f"{name} takes a whole number of pixels from 1 to 2000")
        return HeliumCall(name, pixels=pixels)
    if name == "noop":
        return HeliumCall(name)
    text = args[0] if args else ""
    into = args[1] if len(args) > 1 else kwargs.get("into", "")
    if not isinstance(text, str) or not isinstance(into, str):
        raise ValueError(f'{name} takes text in quotes, like {name}("...")')
    if not text.strip():
        raise ValueError(f"{name} needs a non-empty text")
    if len(text) > MAX_TEXT_CHARS or len(into) > MAX_LABEL_CHARS:
        raise ValueError(f"text is at most {MAX_TEXT_CHARS} characters, a label {MAX_LABEL_CHARS}")
    if name == "press" and text.upper() not in KEYS and len(text) != 1:
        raise ValueError(
            f"unknown key {text[:30]!r}; use one character or one of {', '.join(KEYS)}"
        )
    if name == "wait_until":
        timeout = kwargs.get("timeout_secs", 5.0)
        if isinstance(timeout, bool) or not isinstance(timeout, int | float):
            raise ValueError("timeout_secs is a number of seconds")
        if not 1 <= timeout <= 10:
            raise ValueError("timeout_secs is from 1 to 10 seconds")
        return HeliumCall(name, text=text, timeout_s=float(timeout))
    return HeliumCall(name, text=text, into=into)


def _literal(node: ast.expr) -> object:
    if isinstance(node, ast.Name) and node.id.upper() in KEYS:  # press(ENTER), as Helium writes it
        return node.id.upper()
    if isinstance(node, ast.Attribute) and node.attr.upper() in KEYS:  # press(Keys.ENTER)
        return node.attr.upper()
    try:
        return ast.literal_eval(node)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        raise ValueError(
            "arguments must be literals (text in quotes, numbers) or key names"
        ) from None


class HeliumObservation(Observation):
    """The page after the action: a screenshot, where it is, and its visible text."""

    goal: str = Field(default="", description="The task's instruction")
    url: str = Field(default="", description="The page's URL")
    title: str = Field(default="", description="The page's title")
    text: str = Field(default="", description="The page's visible text (bounded)")
    clickable: list[str] = Field(
        default_factory=list, description="Texts of the page's visible buttons and links"
    )
    screenshot: FrameData | None = Field(
        default=None, description="The page as an RGB image (see screenshot_array())"
    )
    screenshot_shape: list[int] = Field(default_factory=list, description="[height, width, 3]")
    last_action_error: bool = Field(default=False, description="True when the action failed")
    error: str = Field(default="", description="Why the last action failed or was refused")

    def screenshot_array(self) -> np.ndarray | None:
        """The screenshot as a ``uint8`` array of shape ``screenshot_shape``."""
        if self.screenshot is None:
            return None
        return decode_frame(self.screenshot, self.screenshot_shape)


class HeliumState(State):
    """The running episode."""

    task_name: str = ""
    goal: str = ""
    url: str = ""
    max_steps: int = 0
    solved: bool = False
