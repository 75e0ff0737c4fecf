"""The README tab's images: an env's assets/ files are served where its README points."""

from __future__ import annotations

from fastapi.testclient import TestClient
from maze_env.server.environment import MazeEnvironment

from openenv.server import create_app


def test_readme_images_are_served_next_to_the_playground() -> None:
    client = TestClient(create_app(MazeEnvironment))
    readme = client.get("/metadata").json()["readme_content"]
    assert "(assets/screenshot.png)" in readme
    image = client.get("/web/assets/screenshot.png")
    assert image.status_code == 200 and image.content.startswith(b"\x89PNG")
    assert client.get("/web/assets/../openenv.yaml").status_code == 404
    assert client.get("/web/assets/nope.png").status_code == 404
