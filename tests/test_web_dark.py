"""The playground is legible in the browser's dark and light colour schemes: its own text (header,
legend, stats, step log, legends) contrasts with what is behind it, in the fast shell and
on the Gradio page, and the shell hands over to Gradio without a change of colours."""

from __future__ import annotations

import re

import pytest

from tests.conftest import ROOT

pytestmark = pytest.mark.browser

MIN_CONTRAST = 4.5  # WCAG AA for body text
SHELL, GRADIO = "#oe-shell", "#oe-stage"
BUNDLE = "**/assets/index-*.js"  # Gradio's entry module: held back, only the shell runs
# What a visitor reads on the page: (name, selector); {stage} is the shell's or Gradio's.
TEXTS = [
    ("header title", "{head} .oe-header h1"),
    ("header description", "{head} .oe-header p"),
    ("header tag", "{head} .oe-tag"),
    ("legend", "{head} .oe-legend-item"),
    ("stat label", "{stage} .oe-stats span"),
    ("stat value", "{stage} .oe-stats b"),
    ("step log heading", "{stage} .oe-log th"),
    ("step log text", "{stage} .oe-log td"),
    ("chart legend", "{stage} .oe-chart-key span"),
    ("board legend", "{stage} .oe-legend-item"),
    ("keyboard hint", "{stage} .oe-hint"),
    ("download link", "{stage} .oe-dl"),
]
REWARDS = [  # the Rewards tab, open below the stage (Gradio page only)
    ("rewards source line", "#oe-rewards .oe-rv-source"),
    ("rewards step title", "#oe-rewards .oe-components caption"),
    ("rewards action", "#oe-rewards .oe-rv-action"),
    ("rewards step list", "#oe-rewards .oe-rv-list td"),
]
ROOTS = {
    SHELL: {"head": "#oe-shell", "controls": "#oe-shell", "stage": "#oe-shell"},
    GRADIO: {"head": "#oe-header", "controls": "#oe-controls", "stage": "#oe-stage"},
}

# Contrast ratio (WCAG 2) of each element's text colour with the colour behind it: the element's
# and its ancestors' background colours composited down to the first opaque one.
CONTRASTS = """(items) => {
  const rgba = (text) => {
    const p = text.match(/[\\d.]+/g).map(Number);
    return { r: p[0], g: p[1], b: p[2], a: p.length > 3 ? p[3] : 1 };
  };
  const over = (top, under) => ({
    r: top.r * top.a + under.r * (1 - top.a), g: top.g * top.a + under.g * (1 - top.a),
    b: top.b * top.a + under.b * (1 - top.a), a: 1,
  });
  const behind = (el) => {
    const layers = [];
    for (let e = el; e; e = e.parentElement) {
      const c = rgba(getComputedStyle(e).backgroundColor);
      if (c.a > 0) layers.push(c);
      if (c.a >= 1) break;
    }
    let colour = { r: 255, g: 255, b: 255, a: 1 };  // the canvas, if nothing is opaque
    for (const layer of layers.reverse()) colour = over(layer, colour);
    return colour;
  };
  const lum = (c) => {
    const f = (v) => { v /= 255; return v <= 0.04045 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4; };
    return 0.2126 * f(c.r) + 0.7152 * f(c.g) + 0.0722 * f(c.b);
  };
  const out = {};
  for (const [name, selector] of items) {
    const el = document.querySelector(selector);
    if (!el) { out[name] = null; continue; }
    const back = behind(el);
    const [a, b] = [lum(over(rgba(getComputedStyle(el).color), back)), lum(back)];
    out[name] = Math.round(((Math.max(a, b) + 0.05) / (Math.min(a, b) + 0.05)) * 100) / 100;
  }
  out["page luminance"] = lum(behind(document.querySelector(%s)));
  return out;
}"""
COLOURS = """(root) => [
  '.oe-header h1', '.oe-legend-item', '.oe-view', '.oe-stats > div', '.oe-stats b', '.oe-log th',
  '.oe-log td', '.oe-chart', '.oe-act', '.oe-dl',
].map((s) => {
  const scope = s.startsWith('.oe-header') || s === '.oe-legend-item' ? root.head : root.stage;
  const st = getComputedStyle(document.querySelector(scope + ' ' + s));
  return [s, st.color, st.backgroundColor, st.borderTopColor];
})"""


def contrasts(page, root: str) -> dict[str, float]:
    items = [(name, sel.format(**ROOTS[root])) for name, sel in TEXTS]
    items += REWARDS if root == GRADIO else []
    return page.evaluate(CONTRASTS % repr(ROOTS[root]["stage"]), items)


def assert_legible(found: dict[str, float], scheme: str, where: str) -> None:
    dark_page = found.pop("page luminance") < 0.05
    assert dark_page == (scheme == "dark"), f"the {where} did not follow the {scheme} scheme"
    missing = [name for name, ratio in found.items() if ratio is None]
    assert not missing, f"not on the {where}: {missing}"
    faint = {name: ratio for name, ratio in found.items() if ratio < MIN_CONTRAST}
    assert not faint, f"hard to read on the {where} in {scheme} mode (contrast ratios): {faint}"


@pytest.mark.parametrize(
    ("browser_scheme", "theme"),
    [("dark", None), ("light", None), ("light", "dark"), ("dark", "light")],
    ids=["dark", "light", "light-browser-theme-dark", "dark-browser-theme-light"],
)
def test_text_is_legible_in_the_shell_and_on_the_gradio_page(
    browser, grid_server, browser_scheme, theme
):
    """``?__theme=`` (a Space embedded on the Hub passes the site's theme) beats the browser's
    colour scheme on the Gradio page, so it must on the shell too, or the handoff flashes."""
    scheme = theme or browser_scheme
    context = browser.new_context(
        color_scheme=browser_scheme, viewport={"width": 1280, "height": 900}
    )
    page = context.new_page()
    held = []
    page.route(BUNDLE, lambda route: held.append(route))
    try:
        query = f"?__theme={theme}" if theme else ""
        page.goto(grid_server + "/web/" + query, wait_until="commit")
        page.click(f"{SHELL} .oe-shell-reset")
        page.wait_for_selector(f"{SHELL} .oe-act:not([disabled])")
        page.keyboard.press("ArrowDown")
        page.wait_for_selector(f'{SHELL} .oe-stage[data-steps="1"]')
        assert_legible(contrasts(page, SHELL), scheme, "fast shell")
        shell_colours = page.evaluate(COLOURS, ROOTS[SHELL])

        for route in held:
            route.continue_()
        page.unroute(BUNDLE)
        page.wait_for_selector(f'{GRADIO} .oe-stage[data-tab][data-steps="1"]')
        page.wait_for_selector("#oe-rewards .oe-rv-list td")
        assert_legible(contrasts(page, GRADIO), scheme, "Gradio page")
        # The shell stepped aside: what it drew looks the same on the Gradio page.
        assert page.evaluate(COLOURS, ROOTS[GRADIO]) == shell_colours
    finally:
        context.close()


def _tokens(css: str) -> dict[str, str]:
    return dict(re.findall(r"(--oe-[\w-]+):\s*([^;]+);", css))


def test_the_shell_dark_scheme_uses_the_dark_theme_values_of_the_page():
    """The shell paints before Gradio puts ``.dark`` on the page: its prefers-color-scheme block
    must give the same colours as playground.css's ``.dark`` block, or the handoff flickers."""
    page_css = (ROOT / "assets" / "playground.css").read_text(encoding="utf-8")
    shell_css = (ROOT / "assets" / "shell.css").read_text(encoding="utf-8")
    dark_block = re.search(r"\n\.dark \{(.*?)\}", page_css, re.S)
    shell_block = re.search(r"prefers-color-scheme: dark\) \{(.*?)\n\}", shell_css, re.S)
    assert dark_block and shell_block, "a .dark block in playground.css, a dark one in shell.css"
    dark, shell_dark = _tokens(dark_block[1]), _tokens(shell_block[1])
    assert dark, "playground.css has no .dark colours"
    assert {k: shell_dark.get(k) for k in dark} == dark
