"""Wire types of the BrowserGym environment, shared by its client and its server.

Field names follow the reference OpenEnv ``browsergym_env``, so code written for it works here.
Importing this module needs neither BrowserGym nor Playwright: clients install the base package.
"""

from __future__ import annotations

import numpy as np
from pydantic import Field

from openenv.core import Action, Observation, State
from openenv.core.frames import FrameData, decode_frame

MAX_ACTION_CHARS = 2000


class BrowserGymAction(Action):
    """One BrowserGym action string: ``click('12')``, ``fill('5', 'hello')``,
    ``press('12', 'Enter')``, ``scroll(0, 100)``, ``mouse_click(120, 80)``,
    ``keyboard_press('a')``, ``noop()``... (element ids are the ``[bid]`` of ``axtree_txt``;
    coordinates are pixels of ``screenshot``)."""

    action_str: str = Field(
        min_length=1,
        max_length=MAX_ACTION_CHARS,
        description="A BrowserGym action, e.g. click('13') or fill('5', 'hello')",
    )


class BrowserGymObservation(Observation):
    """The page after the action, as text (accessibility tree, pruned HTML) and as pixels."""

    text: str = Field(default="", description="The primary text view: the accessibility tree")
    goal: str = Field(default="", description="The task's instruction")
    axtree_txt: str = Field(default="", description="Accessibility tree, one [bid] per element")
    pruned_html: str = Field(default="", description="The page's HTML, pruned to what matters")
    url: str = Field(default="", description="The active page's URL")
    screenshot: FrameData | None = Field(
        default=None, description="The page as an RGB image (see screenshot_array())"
    )
    screenshot_shape: list[int] = Field(default_factory=list, description="[height, width, 3]")
    last_action_error: bool = Field(default=False, description="True when the action failed")
    error: str = Field(default="", description="Why the last action failed ('' when it did not)")

    def screenshot_array(self) -> np.ndarray | None:
        """The screenshot as a ``uint8`` array of shape ``screenshot_shape``."""
        if self.screenshot is None:
            return None
        return decode_frame(self.screenshot, self.screenshot_shape)


class BrowserGymState(State):
    """The running episode."""

    benchmark: str = "miniwob"
    task_name: str = ""
    goal: str = ""
    current_url: str = ""
    cum_reward: float = 0.0
    max_steps: int = 0
