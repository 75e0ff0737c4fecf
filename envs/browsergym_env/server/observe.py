"""BrowserGym's observation dict turned into what goes on the wire: text views, a frame, and
bounded, JSON-safe copies of the rest for ``metadata``."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from browsergym.utils.obs import flatten_axtree_to_str, flatten_dom_to_str, prune_html

from openenv.core import ActionChoice

MAX_TEXT_CHARS = 100_000  # axtree_txt, pruned_html: MiniWoB pages are a few KB
MAX_META_CHARS = 2_000  # any one string in metadata
MAX_META_ITEMS = 50  # any one list or dict in metadata
MAX_CHOICES = 40  # buttons in the playground, one per clickable element
# The parts of BrowserGym's observation sent in metadata["browsergym_obs"]; the screenshot, the
# DOM and the accessibility tree objects travel as the fields built from them instead.
META_OBS_KEYS = (
    "chat_messages",
    "goal",
    "open_pages_urls",
    "open_pages_titles",
    "active_page_index",
    "url",
    "focused_element_bid",
    "last_action",
    "last_action_error",
)
# Wall-clock readings are left out of metadata: the same seed and actions give the same
# observation, byte for byte (BrowserGym's info has them as *_start / *_stop keys, and
# MiniWoB's REWARD_GLOBAL decays with the time taken; RAW_REWARD_GLOBAL, the reward, stays).
CLOCK_KEYS = ("timestamp", "elapsed_time", "REWARD_GLOBAL")
SKIPPED_ROLES = {"RootWebArea", "StaticText", "InlineTextBox", "generic", "LineBreak", "none"}


def texts(obs: dict[str, Any]) -> tuple[str, str]:
    """``(axtree_txt, pruned_html)`` of a BrowserGym observation, bounded."""
    axtree = flatten_axtree_to_str(obs["axtree_object"])
    html = prune_html(flatten_dom_to_str(obs["dom_object"]))
    return bounded(axtree, MAX_TEXT_CHARS), bounded(html, MAX_TEXT_CHARS)


def bounded(text: str, limit: int) -> str:
    if len(text) <= limit:
        return text
    return text[:limit] + f"\n... ({len(text) - limit} more characters cut)"


def clickable_choices(obs: dict[str, Any]) -> list[ActionChoice]:
    """One ``click('bid')`` per visible clickable element of the accessibility tree, labelled
    with its name (or role), in page order, at most :data:`MAX_CHOICES`."""
    props = obs.get("extra_element_properties") or {}
    choices: list[ActionChoice] = []
    for node in obs["axtree_object"].get("nodes", []):
        bid = node.get("browsergym_id")
        prop = props.get(bid) if bid else None
        if not prop or not prop.get("clickable") or (prop.get("visibility") or 0) < 0.5:
            continue
        role = str((node.get("role") or {}).get("value", ""))
        name = " ".join(str((node.get("name") or {}).get("value", "")).split())
        if role in SKIPPED_ROLES and not name:
            continue
        label = f"{name[:40]} ({role})" if name else f"{role} [{bid}]"
        choices.append(ActionChoice(label, {"action_str": f"click('{bid}')"}, description=bid))
        if len(choices) == MAX_CHOICES:
            break
    return choices


def jsonable(value: Any, depth: int = 0) -> Any:
    """``value`` as bounded JSON: arrays as lists, long strings and collections cut."""
    if depth > 6:
        return None
    if isinstance(value, np.ndarray):
        value = value.tolist() if value.size <= MAX_META_ITEMS else f"<array {value.shape}>"
    if isinstance(value, np.generic):
        value = value.item()
    if isinstance(value, str):
        return bounded(value, MAX_META_CHARS)
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if value is None or isinstance(value, bool | int):
        return value
    if isinstance(value, dict):
        items = list(value.items())[:MAX_META_ITEMS]
        return {str(k): jsonable(v, depth + 1) for k, v in items}
    if isinstance(value, list | tuple):
        return [jsonable(v, depth + 1) for v in list(value)[-MAX_META_ITEMS:]]
    return bounded(repr(value), MAX_META_CHARS)


def meta_obs(obs: dict[str, Any]) -> dict[str, Any]:
    """``metadata["browsergym_obs"]``: BrowserGym's observation without its large arrays."""
    return without_clock({key: jsonable(obs[key]) for key in META_OBS_KEYS if key in obs})


def meta_info(info: dict[str, Any]) -> dict[str, Any]:
    """``metadata["browsergym_info"]``: BrowserGym's step info (the task's own info, the
    action's timeout), without its clock readings."""
    return without_clock(jsonable(info))


def without_clock(value: Any) -> Any:
    if isinstance(value, dict):
        return {
            k: without_clock(v)
            for k, v in value.items()
            if k not in CLOCK_KEYS and not k.endswith(("_start", "_stop", "_time"))
        }
    if isinstance(value, list):
        return [without_clock(v) for v in value]
    return value
