"""Layer 3, the vision judge: the drawing rendered to PNG and shown to a vision model.

The model is the operator's ``judge`` endpoint (:func:`openenv.core.llm.llm_endpoint`); when
none is configured, or it fails, the layer is *not judged* and says why: no score is invented.
:class:`PixelStatsStandInJudge` is a deterministic stand-in for tests and offline demos (it
looks at ink coverage and colour count of the rendered picture, not at what it depicts) and
says so in its verdict.
"""

from __future__ import annotations

import base64
import json
import re
from dataclasses import dataclass
from typing import Protocol

from PIL import Image

from openenv.core.llm import NOT_CONFIGURED, LLMEndpoint, LLMUnavailable, llm_endpoint

RENDER_WIDTH = 512
PAPER = "#ffffff"
_SCORE = re.compile(r'"?score"?\s*[:=]\s*(\d+(?:\.\d+)?)', re.I)


@dataclass(frozen=True)
class Verdict:
    """The judge's score in [0, 1] (None: not judged), who judged and why."""

    score: float | None
    judge: str
    reason: str


class Judge(Protocol):
    name: str

    def judge(self, png: bytes, prompt: str) -> Verdict: ...


def render_png(clean_svg: str, width: int = RENDER_WIDTH) -> bytes | None:
    """The (already gated and sanitised) drawing as PNG on white paper, or None if resvg fails."""
    import resvg_py

    try:
        return bytes(resvg_py.svg_to_bytes(svg_string=clean_svg, width=width, background=PAPER))
    except ValueError:
        return None


class VisionModelJudge:
    """Asks the ``judge`` endpoint's vision model to score the picture 0–10."""

    name = "vision model"

    def __init__(self, endpoint: LLMEndpoint) -> None:
        self.endpoint = endpoint

    def judge(self, png: bytes, prompt: str) -> Verdict:
        image = "data:image/png;base64," + base64.b64encode(png).decode()
        question = (
            f"This picture was drawn as SVG, blind, to show {prompt}. Score from 0 to 10 how "
            "recognisably it shows that subject riding that vehicle (10: clearly both, the "
            'animal properly on the vehicle). Answer JSON only: {"score": <0-10>, "reason": '
            '"<one sentence>"}'
        )
        content = [
            {"type": "text", "text": question},
            {"type": "image_url", "image_url": {"url": image}},
        ]
        try:
            reply = self.endpoint.chat([{"role": "user", "content": content}], max_tokens=200)
        except LLMUnavailable as exc:
            return Verdict(None, self.name, f"not judged: the judge failed ({exc})")
        return parse_reply(str(reply.get("content") or ""), self.name)


def parse_reply(text: str, judge: str) -> Verdict:
    """The score (0–10, scaled to [0, 1]) of a judge's reply; not judged if it has none."""
    reason = ""
    try:
        data = json.loads(text.strip().removeprefix("```json").strip("`"))
        score = float(data["score"])
        reason = str(data.get("reason", ""))[:300]
    except (ValueError, KeyError, TypeError):
        found = _SCORE.search(text)
        if found is None:
            reason = f"not judged: the judge's reply has no score: {text[:200]!r}"
            return Verdict(None, judge, reason)
        score = float(found.group(1))
    if not 0 <= score <= 10:
        return Verdict(None, judge, f"not judged: the judge's score {score:g} is outside 0-10")
    return Verdict(round(score / 10, 4), judge, reason or "scored by the vision model")


class PixelStatsStandInJudge:
    """A deterministic stand-in for a vision judge, for tests and offline demos: 1.0 when the
    rendered picture has ink on 8–70% of the paper and at least 3 distinct colours, less
    otherwise. It does not see what the picture shows."""

    name = "stand-in (pixel statistics, not a vision model)"

    def judge(self, png: bytes, prompt: str) -> Verdict:
        import io

        with Image.open(io.BytesIO(png)) as opened:
            image = opened.convert("RGB").resize((128, 128))
        pixels = [image.getpixel((x, y)) for y in range(128) for x in range(128)]
        ink = sum(1 for p in pixels if min(p) < 245) / len(pixels)
        colours = len({(r // 32, g // 32, b // 32) for r, g, b in pixels if min(r, g, b) < 245})
        coverage = 1.0 if 0.08 <= ink <= 0.7 else 0.0
        variety = min(colours, 3) / 3
        score = round(0.5 * coverage + 0.5 * variety, 4)
        return Verdict(score, self.name, f"ink on {ink:.0%} of the paper, {colours} colours")


def configured_judge(choice: str) -> Judge | None:
    """``"endpoint"``: the operator's vision model (None if unset); ``"stand-in"``: the
    deterministic stand-in; ``"off"``: none."""
    if choice == "stand-in":
        return PixelStatsStandInJudge()
    if choice == "off":
        return None
    endpoint = llm_endpoint("judge")
    return VisionModelJudge(endpoint) if endpoint is not None else None


NOT_JUDGED = f"not judged: {NOT_CONFIGURED} (or OPENENV_LLM_JUDGE_URL for a judge of its own)"
