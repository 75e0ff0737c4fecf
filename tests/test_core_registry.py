"""One answer to "which envs exist, where, and can they run here" for every caller."""

from __future__ import annotations

import importlib.metadata
from pathlib import Path

import pytest

from openenv import AutoEnv
from openenv.core.errors import EnvUnavailable
from openenv.core.registry import MANIFEST, Manifest, discover, find, installed, read_package
from openenv.launch import provider_for

ROOT = Path(__file__).resolve().parent.parent


def test_the_envs_folder_and_the_installed_packages_are_the_same_envs() -> None:
    folder = {p.name: p for p in discover(ROOT / "envs")}
    found = {p.name: p for p in installed()}
    assert "grid_world" in folder and "chess" in folder
    for name, package in folder.items():
        assert found[name] == package  # same directory, same manifest
        assert find(name.replace("_", "-")) == package


def test_a_package_says_where_it_is_and_how_to_serve_it() -> None:
    chess = find("chess_env")
    assert chess.path == (ROOT / "envs" / "chess_env").resolve()
    assert chess.package == "chess_env" and chess.app_ref == "chess_env.server.app:app"
    assert chess.extra == "chess" and chess.install_command() == 'pip install -e ".[chess]"'
    assert chess.image == "chess-env:latest"


def test_a_manifest_name_in_any_spelling_is_normalized(tmp_path: Path) -> None:
    (tmp_path / "fancy_env").mkdir()
    (tmp_path / "fancy_env" / "openenv.yaml").write_text("name: Fancy-Env\n")
    package = read_package(tmp_path / "fancy_env")
    assert package.name == "fancy" and package.title == "Fancy"


def test_a_manifest_title_is_what_people_read_in_the_catalog_and_the_playground() -> None:
    titles = {p.name: p.title for p in installed()}
    assert titles["dm_control"] == "DM Control Suite" and titles["game_2048"] == "2048"
    assert titles["grid_world"] == "Grid World"  # no title: the name spelt out
    dm_control = find("dm_control_env")
    assert Manifest.read(dm_control.path / MANIFEST, "dm_control").display_title == (
        "DM Control Suite"
    )


def test_installed_extras_are_not_reported_missing() -> None:
    assert find("chess").missing_requirements() == []
    assert find("grid_world").missing_requirements() == []  # no extra at all


@pytest.fixture
def chess_uninstalled(monkeypatch: pytest.MonkeyPatch) -> None:
    """As if the ``chess`` distribution (the chess env's extra) were not installed."""
    real = importlib.metadata.version

    def version(name: str) -> str:
        if name == "chess":
            raise importlib.metadata.PackageNotFoundError(name)
        return real(name)

    monkeypatch.setattr(importlib.metadata, "version", version)


@pytest.mark.usefixtures("chess_uninstalled")
def test_a_missing_extra_is_named_with_its_install_command() -> None:
    chess = find("chess")
    assert chess.missing_requirements() == ["chess>=1.10"]
    with pytest.raises(EnvUnavailable, match=r'missing chess>=1\.10.*pip install -e "\.\[chess\]"'):
        provider_for(chess)
    assert provider_for(chess, use_docker=True).image == "chess-env:latest"  # the image has it


@pytest.mark.usefixtures("chess_uninstalled")
def test_auto_env_refuses_to_start_an_env_whose_extra_is_missing() -> None:
    with pytest.raises(EnvUnavailable, match=r"pip install -e"):
        AutoEnv.from_env("chess")
