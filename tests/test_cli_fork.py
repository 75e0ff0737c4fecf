"""``openenv fork OWNER/SPACE`` run as a command against the fake Hub (tests/fake_hub.py): the
Hub's duplicate call gets the target, visibility, hardware, variables and secrets of openenv
0.10's flags; the token is sent and never printed, and neither are secret values."""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import ROOT
from fake_hub import HF_TOKEN, openenv_cli

from openenv.cli.main import _parser


def test_fork_duplicates_the_space_to_your_account(hub, tmp_path: Path) -> None:
    hub.spaces["org/chess-arena"] = {"tags": ["openenv"]}
    done = openenv_cli(["fork", "org/chess-arena"], hub, tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    assert hub.duplicated == [
        ("org/chess-arena", {"repository": "tester/chess-arena", "visibility": "public",
                             "hardware": "cpu-basic"}),
    ]  # fmt: skip
    lines = done.stdout.splitlines()
    assert lines[:3] == [
        "✓ Authenticated as: tester",
        "Forking Space org/chess-arena...",
        "✓ Space forked successfully",
    ]
    assert lines[3] == "Space URL: https://huggingface.co/spaces/tester/chess-arena"
    assert "openenv playground tester/chess-arena" in done.stdout
    posts = [c for c in hub.calls if c[0] == "POST"]
    assert posts == [("POST", "/api/spaces/org/chess-arena/duplicate", f"Bearer {HF_TOKEN}")]
    assert "tester/chess-arena" in hub.spaces


def test_fork_sets_target_visibility_hardware_variables_and_secrets(hub, tmp_path: Path) -> None:
    hub.spaces["org/maze"] = {"tags": ["openenv"]}
    args = ["fork", "org/maze", "-r", "team/my-maze", "--private", "-H", "t4-medium",
            "-e", "MODEL_ID=org/model", "--set-env", "LEVEL = 3",
            "-s", "API_KEY=sk-secret-value", "--secret", "OTHER=also-secret"]  # fmt: skip
    done = openenv_cli(args, hub, tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    (source, body), *_ = hub.duplicated
    assert source == "org/maze"
    assert body == {
        "repository": "team/my-maze",
        "visibility": "private",
        "hardware": "t4-medium",
        "variables": [{"key": "MODEL_ID", "value": "org/model"}, {"key": "LEVEL", "value": "3"}],
        "secrets": [
            {"key": "API_KEY", "value": "sk-secret-value"},
            {"key": "OTHER", "value": "also-secret"},
        ],
    }
    assert "Space URL: https://huggingface.co/spaces/team/my-maze" in done.stdout
    output = done.stdout + done.stderr
    for secret in ("sk-secret-value", "also-secret", HF_TOKEN):
        assert secret not in output


def test_fork_says_what_is_wrong(hub, tmp_path: Path) -> None:
    missing = openenv_cli(["fork", "org/nothing-here"], hub, tmp_path)
    assert missing.returncode == 1
    assert "✗ Fork failed:" in missing.stdout and "404" in missing.stdout
    bad_id = openenv_cli(["fork", "just-a-name"], hub, tmp_path)
    assert bad_id.returncode == 1 and "the Space to fork must be OWNER/NAME" in bad_id.stdout
    bad_target = openenv_cli(["fork", "org/x", "--repo-id", "a/b/c"], hub, tmp_path)
    assert bad_target.returncode == 1 and "--repo-id must be OWNER/NAME" in bad_target.stdout
    bad_secret = openenv_cli(["fork", "org/x", "-s", "sk-no-key"], hub, tmp_path)
    assert bad_secret.returncode == 1
    assert "--set-secret takes KEY=VALUE, got <hidden>" in bad_secret.stdout
    assert "sk-no-key" not in bad_secret.stdout
    no_token = openenv_cli(["fork", "org/x"], hub, tmp_path, token=None)
    assert no_token.returncode == 1 and "no Hugging Face token" in no_token.stdout
    assert hub.duplicated == []


REF_FLAGS = """
import json, typer
from openenv.cli.__main__ import app

root = typer.main.get_command(app)
out = {}
for path in (["fork"], ["skills", "add"], ["skills", "preview"], ["catalog", "build"],
             ["catalog", "inspect"], ["discover"]):
    cmd = root
    for name in path:
        cmd = cmd.commands[name]
    out[" ".join(path)] = sorted(o for p in cmd.params for o in p.opts if o.startswith("-"))
print(json.dumps(out))
"""


@pytest.mark.compat
def test_our_new_verbs_take_every_flag_of_the_reference(tmp_path: Path) -> None:
    """fork, skills, catalog and discover: each flag of openenv 0.10's is one of ours."""
    sys.path.insert(0, str(ROOT / "tests" / "compat"))
    from refvenv import ensure_ref_venv

    done = subprocess.run([str(ensure_ref_venv()), "-c", REF_FLAGS], cwd=tmp_path,
                          capture_output=True, text=True, timeout=300)  # fmt: skip
    assert done.returncode == 0, done.stderr
    theirs = json.loads(done.stdout)
    assert theirs["fork"]  # the reference was read
    sub = next(a for a in _parser()._actions if isinstance(a, argparse._SubParsersAction))
    for command, flags in theirs.items():
        parser = sub.choices[command.split()[0]]
        if " " in command:
            nested = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
            parser = nested.choices[command.split()[1]]
        ours = {o for action in parser._actions for o in action.option_strings}
        assert set(flags) <= ours, (command, set(flags) - ours)
