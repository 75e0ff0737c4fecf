"""The documented environments that run only where they are hosted (Unity ML-Agents, OpenApp,
ThinkingBox): one list in the env registry, shown with their reason by `openenv list` and on the
catalog page, which links nowhere for them (they have no package here)."""

from __future__ import annotations

import re
from pathlib import Path

import httpx
from conftest import ROOT, run_app_py
from conftest import run_cli as openenv

from openenv.core.hosted import HOSTED_ONLY, hosted_only
from openenv.core.registry import discover


def test_the_registry_names_the_three_with_a_reason_and_none_shadows_a_package():
    assert [h.name for h in hosted_only()] == ["openapp", "thinkingbox", "unity"]
    assert all(h.reason and h.description and h.title for h in HOSTED_ONLY)
    packaged = {e.name for e in discover(ROOT / "envs")}
    assert packaged.isdisjoint(h.name for h in HOSTED_ONLY)  # a real package replaces its row


def test_openenv_list_shows_them_as_hosted_only_with_the_reason(tmp_path: Path):
    envs = tmp_path / "envs"
    envs.mkdir()
    (envs / "grid_world_env").symlink_to(ROOT / "envs" / "grid_world_env")
    done = openenv("list", cwd=tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    assert re.search(r"^✓ grid_world\s+available", done.stdout, re.M)
    for hosted in HOSTED_ONLY:
        line = re.search(rf"^☁ {hosted.name}\s+hosted only \((.+)\); (.+)$", done.stdout, re.M)
        assert line, done.stdout
        assert line[1] == hosted.reason and "openenv playground URL" in line[2]
    assert "Unity environment builds" in done.stdout and "Python 3.10" in done.stdout


def test_one_env_listed_alone_does_not_list_them(tmp_path: Path):
    done = openenv("list", str(ROOT / "envs" / "grid_world_env"), cwd=tmp_path)
    assert done.returncode == 0 and "hosted only" not in done.stdout


def test_the_catalog_page_shows_them_without_a_link(tmp_path: Path):
    envs = tmp_path / "envs"
    envs.mkdir()
    (envs / "grid_world_env").symlink_to(ROOT / "envs" / "grid_world_env")
    with run_app_py(envs) as url:
        page = httpx.get(url + "/", timeout=30).text
    section = page[page.index('<section id="hosted"') :]
    section = section[: section.index("</section>")]
    for hosted in HOSTED_ONLY:
        assert f'data-name="{hosted.name}"' in section
        assert f"Hosted only: {hosted.reason}." in section
    assert "openenv playground URL" in section
    assert "<a " not in section and "href" not in section  # no playground, nothing to break
    assert 'class="card' not in section  # not cards: the filters and counts leave them out
