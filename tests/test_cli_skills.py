"""``openenv skills preview|add``: the SKILL.md is generated from this CLI's parser and the
installed manifests, and installed where openenv 0.10 installs it (a central folder, relative
symlinks from each assistant's skills folder), with the reference's front matter fields."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from conftest import ROOT, run_cli

from openenv.cli.main import _parser
from openenv.cli.skills import build_skill_md


def front_matter(text: str) -> dict:
    assert text.startswith("---\n")
    return yaml.safe_load(text.split("---\n")[1])


def test_the_skill_names_every_command_and_installed_env() -> None:
    text = build_skill_md()
    assert front_matter(text)["name"] == "openenv-cli"
    sub = next(a for a in _parser()._actions if a.__class__.__name__ == "_SubParsersAction")
    for name in sub.choices:
        assert f"- `openenv {name}" in text, name
    for usage in ("openenv discover [QUERY]", "openenv catalog build", "openenv skills add",
                  "openenv fork OWNER/SPACE", "openenv init NAME"):  # fmt: skip
        assert f"`{usage}`" in text
    from openenv.core.registry import installed

    for env in installed():
        assert f"- `{env.name}` — " in text
    assert 'AutoEnv.from_env("grid_world")' in text
    assert "`from grid_world_env import GridWorldEnv`" in text


def test_preview_prints_it(tmp_path: Path) -> None:
    done = run_cli("skills", "preview", cwd=tmp_path)
    assert done.returncode == 0
    assert done.stdout == build_skill_md() + "\n"


def test_add_installs_centrally_and_links_each_assistant(tmp_path: Path) -> None:
    done = run_cli("skills", "add", "--claude", "--cursor", cwd=tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    central = tmp_path / ".agents/skills/openenv-cli"
    assert (central / "SKILL.md").read_text() == build_skill_md()
    for agent in (".claude", ".cursor"):
        link = tmp_path / agent / "skills" / "openenv-cli"
        assert link.is_symlink()
        assert os.readlink(link) == "../../.agents/skills/openenv-cli"
        assert (link / "SKILL.md").read_text() == build_skill_md()
    assert not (tmp_path / ".codex").exists()
    assert done.stdout.splitlines() == [
        f"Installed 'openenv-cli' to central location: {central}",
        f"Created symlink: {tmp_path / '.claude/skills/openenv-cli'}",
        f"Created symlink: {tmp_path / '.cursor/skills/openenv-cli'}",
    ]
    again = run_cli("skills", "add", "--claude", cwd=tmp_path)
    assert again.returncode == 1 and "Re-run with --force to overwrite." in again.stdout
    (central / "SKILL.md").write_text("stale")
    forced = run_cli("skills", "add", "--claude", "--force", cwd=tmp_path)
    assert forced.returncode == 0
    assert (tmp_path / ".claude/skills/openenv-cli/SKILL.md").read_text() == build_skill_md()


def test_add_global_and_dest(tmp_path: Path) -> None:
    home = tmp_path / "home"
    env = {**os.environ, "HOME": str(home)}
    done = run_cli("skills", "add", "--global", "--opencode", "--codex", cwd=tmp_path, env=env)
    assert done.returncode == 0, done.stdout + done.stderr
    assert (home / ".agents/skills/openenv-cli/SKILL.md").is_file()
    assert (home / ".config/opencode/skills/openenv-cli/SKILL.md").is_file()
    assert (home / ".codex/skills/openenv-cli").is_symlink()
    dest = run_cli("skills", "add", "--dest", "mine", cwd=tmp_path)
    assert dest.returncode == 0
    assert dest.stdout.strip() == f"Installed 'openenv-cli' to {tmp_path / 'mine/openenv-cli'}"
    mixed = run_cli("skills", "add", "--dest", "mine", "--claude", cwd=tmp_path)
    assert mixed.returncode == 1 and "--dest cannot be combined" in mixed.stdout


@pytest.mark.compat
def test_the_reference_skill_has_the_same_front_matter_and_layout(tmp_path: Path) -> None:
    sys.path.insert(0, str(ROOT / "tests" / "compat"))
    from refvenv import ensure_ref_venv

    ref = ensure_ref_venv().parent / "openenv"
    preview = subprocess.run([str(ref), "skills", "preview"], capture_output=True, text=True)
    assert preview.returncode == 0, preview.stderr
    theirs, ours = front_matter(preview.stdout), front_matter(build_skill_md())
    assert theirs.keys() == ours.keys() and theirs["name"] == ours["name"]
    ref_dir, our_dir = tmp_path / "ref", tmp_path / "ours"
    for where, argv in ((ref_dir, [str(ref)]), (our_dir, [sys.executable, "-m", "openenv.cli"])):
        where.mkdir()
        done = subprocess.run([*argv, "skills", "add", "--claude", "--codex"], cwd=where,
                              capture_output=True, text=True)  # fmt: skip
        assert done.returncode == 0, done.stderr
    layout = {
        d: sorted(
            (str(p.relative_to(d)), os.readlink(p) if p.is_symlink() else None)
            for p in d.rglob("*")
        )
        for d in (ref_dir, our_dir)
    }
    assert layout[ref_dir] == layout[our_dir]
