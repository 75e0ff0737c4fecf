"""``create_app(..., gradio_builder=fn, custom_first=True)``: an environment whose own UI is its
front door (Harbor's task browser) gets that UI as the page's first screen, with the generic
playground folded below it, still working."""

from __future__ import annotations

from typing import Any

import httpx
import pytest
from grid_world_env.server.environment import GridWorldEnvironment

from openenv.server import create_app
from tests.conftest import served


def _walk(node: dict[str, Any]) -> list[int]:
    """The component ids of a Gradio layout, in the order the page draws them."""
    return [node["id"], *(i for child in node.get("children", []) for i in _walk(child))]


def _ids(config: dict[str, Any]) -> dict[str, int]:
    by_elem = {}
    for comp in config["components"]:
        props = comp.get("props", {})
        key = props.get("elem_id") or props.get("label")
        if key:
            by_elem[str(key)] = comp["id"]
    return by_elem


def _builder(api: Any) -> None:
    import gradio as gr

    gr.Textbox(label="own box", elem_id="own-box")


def test_the_envs_own_ui_comes_first_and_the_playground_folds_below() -> None:
    app = create_app(GridWorldEnvironment, gradio_builder=_builder, custom_first=True)
    config = app.state.openenv.web["blocks"].config
    order = _walk(config["layout"])
    ids = _ids(config)
    assert order.index(ids["own-box"]) < order.index(ids["oe-stage"])
    fold = next(c for c in config["components"] if c["id"] == ids["oe-playground-fold"])
    assert fold["props"]["open"] is False  # one click away, not in the way
    assert order.index(ids["oe-playground-fold"]) < order.index(ids["oe-stage"])


def test_by_default_the_stage_comes_first_and_the_own_ui_is_a_tab() -> None:
    app = create_app(GridWorldEnvironment, gradio_builder=_builder, custom_tab_name="Mine")
    config = app.state.openenv.web["blocks"].config
    order = _walk(config["layout"])
    ids = _ids(config)
    assert order.index(ids["oe-stage"]) < order.index(ids["own-box"])
    assert "oe-playground-fold" not in ids


def test_the_page_has_no_fast_shell_drawing_a_stage_first() -> None:
    first = create_app(GridWorldEnvironment, gradio_builder=_builder, custom_first=True)
    plain = create_app(GridWorldEnvironment)
    with served(first) as url:
        assert 'id="oe-shell"' not in httpx.get(url + "/web/", timeout=60).text
    with served(plain) as url:
        assert 'id="oe-shell"' in httpx.get(url + "/web/", timeout=60).text


def test_custom_first_without_an_own_ui_is_refused() -> None:
    with pytest.raises(ValueError, match="custom_first needs a gradio_builder"):
        create_app(GridWorldEnvironment, custom_first=True)
