"""/docs works offline: the browser loads nothing from outside the server."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from conftest import ROOT, api_app, run_app_py, served

OPERATIONS = ("/reset", "/step", "/state", "/health", "/schema")


@pytest.fixture(scope="module")
def server() -> Iterator[str]:
    with served(api_app("grid_world_env.server.app:app")) as url:
        yield url


@pytest.fixture(scope="module")
def catalog(tmp_path_factory) -> Iterator[str]:
    """``python app.py`` serving only the grid world (mounted under /envs/grid_world/)."""
    envs = tmp_path_factory.mktemp("docs-catalog") / "envs"
    envs.mkdir()
    (envs / "grid_world_env").symlink_to(ROOT / "envs" / "grid_world_env")
    with run_app_py(envs) as url:
        yield url


def assets_of(html: str) -> list[str]:
    return re.findall(r'(?:src|href)="([^"]+)"', html)


def test_the_docs_page_points_only_at_files_of_the_server(server: str) -> None:
    urls = assets_of(httpx.get(server + "/docs").text)
    assert len(urls) == 3 and all(u.startswith("/docs/assets/") for u in urls), urls
    for url in urls:
        assert httpx.get(server + url).status_code == 200, url


def test_redoc_is_not_served_since_its_bundle_always_calls_its_cdn(server: str) -> None:
    assert httpx.get(server + "/redoc").status_code == 404


def test_swagger_ui_shows_the_operations_without_leaving_the_server(server: str, page) -> None:
    page.goto(server + "/docs")
    page.locator(".opblock-summary-path", has_text="/step").first.wait_for()
    paths = page.locator(".opblock-summary-path").all_inner_texts()
    assert set(OPERATIONS) <= {p.strip() for p in paths}
    assert page.external_requests == []
    assert page.console_errors == []


def test_the_catalog_api_link_opens_offline_docs_under_the_env_prefix(catalog: str, page) -> None:
    loaded: list[str] = []
    page.on("requestfinished", lambda r: loaded.append(r.url))
    page.goto(catalog + "/")
    page.get_by_role("link", name="API").first.click()
    page.wait_for_url(re.compile(r"/envs/grid_world/docs$"))
    page.locator(".opblock-summary-path", has_text="/step").first.wait_for()
    paths = {p.strip() for p in page.locator(".opblock-summary-path").all_inner_texts()}
    assert set(OPERATIONS) <= paths
    assert any(u.endswith("/envs/grid_world/docs/assets/swagger-ui-bundle.js") for u in loaded)
    assert any(u.endswith("/envs/grid_world/openapi.json") for u in loaded)
    assert page.external_requests == []
    assert page.console_errors == []


def test_the_docs_assets_are_found_from_an_installed_package() -> None:
    from openenv.server.docs import assets_dir

    names = {p.name for p in Path(assets_dir()).iterdir()}
    assert {"swagger-ui-bundle.js", "swagger-ui.css", "favicon.png"} <= names


def test_the_catalogs_own_docs_page_is_offline_too(catalog: str, page) -> None:
    assert httpx.get(catalog + "/redoc").status_code == 404
    urls = assets_of(httpx.get(catalog + "/docs").text)
    assert len(urls) == 3 and all(u.startswith("/docs/assets/") for u in urls), urls
    page.goto(catalog + "/docs")
    page.locator(".opblock-summary-path").first.wait_for()
    assert page.external_requests == []
    assert page.console_errors == []
