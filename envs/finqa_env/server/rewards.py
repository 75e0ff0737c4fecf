"""FinQA's reward: 1.0 when the submitted number matches the reference within 1 % (relative)
or 0.01 (absolute), else 0.0.

Numbers are read from ``\\boxed{...}`` when present, else from the whole answer; ``$``,
thousands separators, ``%``, fractions (``3/4``) and accounting negatives (``(26)``) are
understood. A reference written with ``%`` also accepts the same value as a fraction
(``32.83%`` and ``0.3283``). A non-numeric reference is compared as normalised text.
"""

from __future__ import annotations

import math
import re

REL_TOL = 0.01
ABS_TOL = 0.01
BOXED = re.compile(r"\\boxed\{([^{}]*)\}")
NUMBER = re.compile(r"\(?-?\d+(?:\.\d+)?(?:\s*/\s*\d+(?:\.\d+)?)?\)?")


def extract_boxed(text: str) -> str:
    """The last ``\\boxed{...}`` content of ``text``, or the text itself."""
    found = BOXED.findall(text)
    return found[-1] if found else text


def parse_number(text: str) -> tuple[float, bool] | None:
    """``(value, had_percent)`` of the first number in ``text``, or None."""
    clean = text.replace(",", "").replace("$", "").replace("\u2212", "-")
    match = NUMBER.search(clean)
    if match is None:
        return None
    token = match.group(0)
    negative = token.startswith("(") and token.endswith(")")
    token = token.strip("()")
    if "/" in token:
        top, bottom = (float(p) for p in token.split("/"))
        if bottom == 0:
            return None
        value = top / bottom
    else:
        value = float(token)
    return (-value if negative else value), "%" in clean[match.end() : match.end() + 3]


def close(a: float, b: float) -> bool:
    return math.isclose(a, b, rel_tol=REL_TOL, abs_tol=ABS_TOL)


def score(submitted: str, truth: str) -> float:
    """1.0 when ``submitted`` matches ``truth`` (see the module docstring), else 0.0."""
    got, want = parse_number(extract_boxed(submitted)), parse_number(extract_boxed(truth))
    if want is None:
        return float(_norm(extract_boxed(submitted)) == _norm(extract_boxed(truth)))
    if got is None:
        return 0.0
    candidates = [got[0]]
    if want[1] and not got[1]:
        candidates.append(got[0] * 100)
    return float(any(close(value, want[0]) for value in candidates))


def _norm(text: str) -> str:
    return " ".join(text.lower().strip().rstrip(".").split())
