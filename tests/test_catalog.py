"""The catalog (`python app.py`): landing page, thumbnails, mounted envs, unavailable envs.

The server runs `python app.py` itself, on a catalog directory holding the grid world and an
environment whose optional extra is missing (``$OPENENV_ENVS_DIR``), so it starts fast.
"""

from __future__ import annotations

import io
import re
import textwrap
from collections.abc import Iterator
from pathlib import Path

import httpx
import numpy as np
import pytest
from conftest import ROOT, run_app_py
from grid_world_env import GridWorldAction, GridWorldEnv
from grid_world_env.server.environment import GridWorldEnvironment
from PIL import Image

from openenv.core.views import Frame, Svg, Text
from openenv.validation.verdict import read_verdict
from openenv.web.drawing import to_thumbnail

MISSING_EXTRA_APP = """\
import definitely_not_installed_module  # the optional dependency of this env
"""


def make_catalog_dir(root: Path) -> Path:
    """envs/ with the real grid world and an env whose optional dependency is missing."""
    envs = root / "envs"
    envs.mkdir()
    (envs / "grid_world_env").symlink_to(ROOT / "envs" / "grid_world_env")
    fancy = envs / "fancy_env"
    (fancy / "server").mkdir(parents=True)
    (fancy / "__init__.py").write_text("")
    (fancy / "server" / "__init__.py").write_text("")
    (fancy / "server" / "app.py").write_text(MISSING_EXTRA_APP)
    (fancy / "openenv.yaml").write_text(
        textwrap.dedent("""\
            name: fancy
            description: Needs an optional dependency
            tags: [physics]
            emoji: 🧪
            extra: fancy
        """)
    )
    return envs


@pytest.fixture(scope="module")
def catalog(tmp_path_factory) -> Iterator[str]:
    with run_app_py(make_catalog_dir(tmp_path_factory.mktemp("catalog"))) as url:
        yield url


def test_landing_page_has_a_card_per_env_with_its_playground_link(catalog: str) -> None:
    html = httpx.get(catalog + "/").text
    card = re.search(r'<article class="card" data-name="grid_world".*?</article>', html, re.S)
    assert card, "no card for grid_world"
    text = card.group(0)
    assert "Grid World" in text and "🤖" in text
    assert "A deterministic 5x5 grid world" in text
    assert "<li>tutorial</li>" in text
    assert 'href="envs/grid_world/web/"' in text and "Open playground" in text
    assert 'src="thumbs/grid_world.png"' in text
    # the verdict it ships (validation/verdict.json), on the card and in the playground's header
    shipped = read_verdict(ROOT / "envs" / "grid_world_env")
    assert shipped is not None  # (no README: a layout warning)
    assert f'<p class="verdict {shipped.verdict}"' in text and shipped.label in text
    assert "openenv validate (RFC 008), level semantic" in text
    assert f"oe-verdict-{shipped.verdict}" in httpx.get(catalog + "/envs/grid_world/web/").text
    fancy = re.search(
        r'<article class="card unavailable" data-name="fancy".*?</article>', html, re.S
    )
    assert fancy and 'class="verdict' not in fancy.group(0)  # ships none: no badge


def test_an_env_with_a_missing_extra_is_listed_with_its_install_command(catalog: str) -> None:
    envs = {e["name"]: e for e in httpx.get(catalog + "/api/envs").json()}
    assert envs["grid_world"]["available"] is True
    fancy = envs["fancy"]
    assert fancy["available"] is False
    assert fancy["install"] == 'pip install -e ".[fancy]"'
    assert "definitely_not_installed_module" in fancy["reason"]
    html = httpx.get(catalog + "/").text
    card = re.search(
        r'<article class="card unavailable" data-name="fancy".*?</article>', html, re.S
    )
    assert card and "pip install -e &quot;.[fancy]&quot;" in card.group(0)
    assert "Open playground" not in card.group(0)
    assert httpx.get(catalog + "/envs/fancy/health").status_code == 404


def test_thumbnail_is_the_first_render_of_a_seed_0_episode(catalog: str) -> None:
    response = httpx.get(catalog + "/thumbs/grid_world.png")
    assert response.headers["content-type"] == "image/png"
    env = GridWorldEnvironment()
    env.reset(seed=0)
    expected = Image.open(io.BytesIO(to_thumbnail(env.render()).data))
    served = Image.open(io.BytesIO(response.content))
    assert served.size == expected.size
    assert np.array_equal(np.asarray(served), np.asarray(expected))


def test_each_env_api_is_mounted_under_envs_name(catalog: str) -> None:
    base = catalog + "/envs/grid_world"
    assert httpx.get(base + "/health").json() == {"status": "healthy"}
    assert httpx.get(base + "/schema").json()["action"]["title"] == "GridWorldAction"
    with GridWorldEnv(base_url=base).sync() as env:
        env.reset(seed=0)
        result = env.step(GridWorldAction(action="DOWN"))
        assert (result.observation.x, result.observation.y) == (1, 0)
        assert result.reward == pytest.approx(-0.1)


def test_envs_name_without_slash_leads_to_the_playground(catalog: str) -> None:
    response = httpx.get(catalog + "/envs/grid_world", follow_redirects=False)
    assert response.status_code in (302, 307)
    assert response.headers["location"].endswith("/envs/grid_world/web/")


def test_views_become_thumbnails_of_their_kind() -> None:
    frame = to_thumbnail(Frame(np.zeros((4, 6, 3), dtype=np.uint8)))
    assert frame.kind == "png" and Image.open(io.BytesIO(frame.data)).size == (6, 4)
    svg = to_thumbnail(Svg('<svg xmlns="http://www.w3.org/2000/svg"/>'))
    assert svg.kind == "svg" and svg.svg_data_url().startswith("data:image/svg+xml;base64,")
    text = to_thumbnail(Text("a\nb\n" + "x" * 200))
    assert text.kind == "text" and text.data.splitlines()[:2] == ["a", "b"]
    assert max(len(line) for line in text.data.splitlines()) <= 160
    assert to_thumbnail(None).kind == "none"


@pytest.mark.browser
def test_search_and_tag_filters_narrow_the_cards(page, catalog: str) -> None:
    page.goto(catalog + "/")
    cards = page.locator(".card:visible")
    assert cards.count() == 2
    page.fill("#q", "deterministic")
    assert page.locator(".card:visible").count() == 1
    assert page.locator(".card:visible h2").inner_text().endswith("Grid World")
    page.fill("#q", "")
    page.get_by_role("button", name="physics", exact=True).click()
    assert page.locator(".card:visible").count() == 1
    assert page.locator(".card:visible").get_attribute("data-name") == "fancy"
    page.fill("#q", "nothing matches this")
    page.locator("#empty").wait_for()
    page.get_by_role("button", name="Clear the filters").click()
    assert page.locator(".card:visible").count() == 2
    thumb = page.locator('.card[data-name="grid_world"] img')
    assert thumb.evaluate("img => img.complete && img.naturalWidth > 0")
    assert not page.console_errors and not page.external_requests


@pytest.mark.browser
def test_open_playground_plays_the_env_under_its_prefix(page, catalog: str) -> None:
    page.goto(catalog + "/")
    page.locator('.card[data-name="grid_world"]').get_by_role(
        "link", name="Open playground"
    ).click()
    page.wait_for_url(re.compile(r"/envs/grid_world/web/"))
    page.wait_for_selector("#oe-stage .oe-act:not([disabled])")
    page.click("#oe-stage .oe-act:has-text('Down')")
    page.wait_for_selector('#oe-stage .oe-stage[data-steps="1"]')
    assert page.locator("#oe-stage .oe-board .oe-cell").nth(5).get_attribute("title") == "agent"
    assert not page.console_errors and not page.external_requests


@pytest.mark.browser
def test_a_text_thumbnail_wraps_inside_its_card(page, tmp_path) -> None:
    from openenv.web.catalog.app import load_catalog
    from openenv.web.catalog.page import render_page

    items = [i for i in load_catalog(make_catalog_dir(tmp_path)) if i.available]
    long_lines = "\n".join(f"line {n}: " + "a fairly long sentence of text " * 3 for n in range(9))
    items[0].thumbnail = to_thumbnail(Text(long_lines))
    page.set_content(render_page("Catalog", items))
    fit = page.locator(".text-thumb").evaluate(
        """pre => {
            const box = pre.getBoundingClientRect();
            const card = pre.closest('.card').getBoundingClientRect();
            return {wide: pre.scrollWidth <= pre.clientWidth,
                    inside: box.left >= card.left && box.right <= card.right,
                    start: pre.innerText.trimStart().startsWith('line 0:')};
        }"""
    )
    assert fit == {"wide": True, "inside": True, "start": True}
