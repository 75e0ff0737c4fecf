"""Publishing and connecting to Spaces, without a network.

`openenv push` runs as a real command whose ``huggingface_hub`` client talks to a fake Hub on
loopback (``HF_ENDPOINT``, tests/fake_hub.py), which records what would be created and
uploaded. ``from_env`` connects to a real local server standing in for the Space.
"""

from __future__ import annotations

import pytest
import yaml
from conftest import ROOT, serve
from fake_hub import HF_TOKEN, openenv_cli
from grid_world_env import GridWorldAction, GridWorldEnv

from openenv.core.errors import ClientError
from openenv.hub import spaces
from openenv.hub.bundle import read_front_matter

SECRET = "s3cr3t-value-never-printed"


def test_push_creates_a_docker_space_and_uploads_the_bundle(hub, tmp_path) -> None:
    grid = str(ROOT / "envs" / "grid_world_env")
    done = openenv_cli(
        ["push", grid, "--repo-id", "tester/grid-world", "--private",
         "--var", "MODE=demo", "--secret", f"API_KEY={SECRET}"],
        hub, tmp_path,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    assert hub.created == [
        {"name": "grid-world", "organization": "tester", "visibility": "private",
         "type": "space", "sdk": "docker"}
    ]  # fmt: skip
    dry = openenv_cli(["push", grid, "--dry-run", str(tmp_path / "dry")], hub, tmp_path)
    bundle_files = {
        p.relative_to(tmp_path / "dry").as_posix()
        for p in (tmp_path / "dry").rglob("*")
        if p.is_file() and not p.name.startswith(".openenv")
    }
    assert dry.returncode == 0 and set(hub.files) == bundle_files
    assert {"Dockerfile", "README.md", "app.py", "requirements.txt"} <= set(hub.files)
    assert "envs/grid_world_env/server/environment.py" in hub.files
    assert "openenv/server/app.py" in hub.files and "openenv/web/playground.py" in hub.files
    meta = read_front_matter(hub.files["README.md"].decode())
    assert meta["sdk"] == "docker" and meta["app_port"] == 7860 and meta["base_path"] == "/web"
    assert "openenv" in meta["tags"] and meta["title"] == "Grid World"
    assert hub.validated_yaml == [meta]
    assert hub.variables == {"MODE": "demo"} and hub.secrets == {"API_KEY": SECRET}
    ours = [call for call in hub.calls if call[0] == "POST"]  # (GETs: the client's own lookups)
    assert len(ours) >= 6 and all(auth == f"Bearer {HF_TOKEN}" for _, _, auth in ours), ours
    assert "https://huggingface.co/spaces/tester/grid-world" in done.stdout
    assert "https://tester-grid-world.hf.space" in done.stdout
    for leak in (HF_TOKEN, SECRET):
        assert leak not in done.stdout + done.stderr


def test_dry_run_writes_the_bundle_and_sends_nothing(hub, tmp_path) -> None:
    out = tmp_path / "bundle"
    done = openenv_cli(
        ["push", str(ROOT / "envs" / "grid_world_env"), "--dry-run", str(out),
         "--repo-id", "tester/grid", "--secret", f"K={SECRET}"],
        hub, tmp_path, token=None,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    assert [c for c in hub.calls if c[0] == "POST"] == []
    assert "Dry run: nothing was sent" in done.stdout and "set the secret K" in done.stdout
    assert SECRET not in done.stdout
    assert yaml.safe_load((out / "README.md").read_text().split("---")[1])["sdk"] == "docker"
    assert 'GridWorldEnv.from_env("tester/grid")' in (out / "README.md").read_text()


def test_push_without_a_token_says_how_to_log_in(hub, tmp_path) -> None:
    done = openenv_cli(
        ["push", str(ROOT / "envs" / "grid_world_env"), "--repo-id", "tester/grid"],
        hub, tmp_path, token=None,
    )  # fmt: skip
    assert done.returncode == 1
    assert "HF_TOKEN" in done.stdout and "hf auth login" in done.stdout
    assert [c for c in hub.calls if c[0] == "POST"] == []


def test_push_without_repo_id_uses_your_user_name(hub, tmp_path) -> None:
    done = openenv_cli(["push", str(ROOT / "envs" / "grid_world_env")], hub, tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    assert hub.created[0]["organization"] == "tester" and hub.created[0]["name"] == "grid-world"
    assert hub.created[0]["visibility"] == "public"


def test_a_malformed_secret_is_refused_without_echoing_it(hub, tmp_path) -> None:
    done = openenv_cli(
        ["push", str(ROOT / "envs" / "grid_world_env"), "--secret", SECRET], hub, tmp_path
    )
    assert done.returncode == 1 and "--secret takes KEY=VALUE" in done.stdout
    assert SECRET not in done.stdout + done.stderr
    assert [c for c in hub.calls if c[0] == "POST"] == []


@pytest.mark.parametrize(
    ("given", "url"),
    [
        ("openenv/echo_env", "https://openenv-echo-env.hf.space"),
        ("Org/My.Env_v2", "https://org-my-env-v2.hf.space"),
        ("https://huggingface.co/spaces/owner/grid_world", "https://owner-grid-world.hf.space"),
        ("http://127.0.0.1:8000/", "http://127.0.0.1:8000"),
    ],
)
def test_space_urls_follow_the_hub_naming(given: str, url: str) -> None:
    assert spaces.space_url(given) == url


def test_a_bad_space_id_says_what_is_expected() -> None:
    with pytest.raises(ValueError, match="OWNER/NAME"):
        spaces.space_url("just-a-name")


def test_from_env_sends_the_hf_token_to_a_private_space(monkeypatch) -> None:
    # The stand-in Space demands a bearer token, as a private Space does.
    stand_in = {"OPENENV_API_TOKEN": HF_TOKEN, "ENABLE_WEB_INTERFACE": "0"}
    with serve("grid_world_env.server.app:app", env=stand_in) as url:
        monkeypatch.setattr(spaces, "space_url", lambda repo_id: url)
        monkeypatch.delenv("OPENENV_API_TOKEN", raising=False)
        monkeypatch.setenv("HF_TOKEN", HF_TOKEN)
        with GridWorldEnv.from_env("tester/grid-world").sync() as env:
            env.reset(seed=0)
            assert env.step(GridWorldAction(action="RIGHT")).observation.y == 1
        monkeypatch.delenv("HF_TOKEN")
        monkeypatch.setattr(spaces, "hub_token", lambda explicit=None: explicit)
        with pytest.raises(ClientError):  # refused at the handshake or at the first call
            client = GridWorldEnv.from_env("tester/grid-world").sync()
            try:
                client.reset(seed=0)
            finally:
                client.close()


def test_from_env_local_runs_the_env_here_and_stops_it_on_close() -> None:
    env = GridWorldEnv.from_env("tester/grid_world", local=True).sync()
    try:
        env.reset(seed=0)
        assert env.step(GridWorldAction(action="DOWN")).observation.x == 1
    finally:
        env.close()
