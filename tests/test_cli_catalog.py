"""``openenv catalog build|inspect``, ``openenv discover`` and the catalog app serving a catalog
file: built from a Git repository of env packages (committed files only), read back, searched by
task; the reference 0.10 CLI reads our files and prints what ours prints, and ours reads its."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import ROOT, run_cli
from fastapi.testclient import TestClient

URI = "https://github.com/example/envs.git"
BUILD = ["--repository-uri", URI, "--publisher", "example.org"]


def git(repo: Path, *args: str) -> str:
    done = subprocess.run(
        ["git", "-C", str(repo), "-c", "user.name=t", "-c", "user.email=t@example.org", *args],
        capture_output=True,
        text=True,
        check=True,
    )
    return done.stdout.strip()


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """A Git repository with two real env packages (grid_world, wordle: their manifests and
    READMEs as shipped) and one with a discovery.json declaring queries, tags and a license."""
    repo = tmp_path / "repo"
    for name in ("grid_world_env", "wordle_env"):
        dest = repo / "envs" / name
        dest.mkdir(parents=True)
        for file in ("openenv.yaml", "README.md"):
            if (ROOT / "envs" / name / file).is_file():
                shutil.copy(ROOT / "envs" / name / file, dest / file)
    pond = repo / "envs" / "pond_env"
    pond.mkdir()
    (pond / "openenv.yaml").write_text("spec_version: 1\nname: pond\ndescription: Fish a pond\n")
    declared = {
        "description": "Catch fish in a pond by choosing where to cast a line",
        "tags": ["fishing", "simulation"],
        "representative_queries": ["fishing game", "cast a line at fish"],
        "license": "MIT",
    }
    (pond / "discovery.json").write_text(json.dumps(declared))
    (repo / "pyproject.toml").write_text('[project]\nname = "envs"\nlicense = "Apache-2.0"\n')
    git(repo.parent, "init", "-q", str(repo))
    git(repo, "add", ".")
    git(repo, "commit", "-q", "-m", "envs")
    return repo


def build(repo: Path, out: Path, *extra: str) -> subprocess.CompletedProcess:
    return run_cli(
        "catalog", "build", "--repository", str(repo), *BUILD, "--output", str(out), *extra,
        cwd=repo,
    )  # fmt: skip


def test_build_writes_a_versioned_metadata_catalog(repo: Path, tmp_path: Path) -> None:
    out = tmp_path / "catalog.json"
    (repo / "envs" / "draft_env").mkdir()  # not committed: never read
    (repo / "envs" / "draft_env" / "openenv.yaml").write_text("name: draft\ndescription: d\n")
    done = build(repo, out)
    assert done.returncode == 0, done.stdout + done.stderr
    snapshot = json.loads(out.read_text())
    assert done.stdout.startswith(f"3 records, snapshot {snapshot['digest']}, complete=true")
    revision = git(repo, "rev-parse", "HEAD")
    assert snapshot["schema_version"] == "0.1-draft"
    assert snapshot["source"] == {"provider": "github", "id": "example/envs", "uri": URI,
                                  "revision": revision}  # fmt: skip
    assert snapshot["inventory"] == {
        "root": "envs",
        "paths": ["envs/grid_world_env", "envs/pond_env", "envs/wordle_env"],
    }
    by_name = {e["displayName"]: e for e in snapshot["entries"]}
    assert set(by_name) == {"grid_world", "pond", "wordle"}
    grid = by_name["grid_world"]
    assert grid["description"].startswith("A deterministic 5x5 grid world")
    assert grid["tags"] == ["discrete", "grid", "tutorial"]  # the manifest's tags
    assert grid["identifier"].startswith("urn:air:example.org:openenv:")
    assert grid["identifier"].endswith(f":{revision}")
    assert grid["data"]["license"] == "Apache-2.0"  # the repository's, from its pyproject
    assert grid["metadata"]["playground"]["emoji"] == "🤖"
    pond = by_name["pond"]
    assert pond["description"] == "Catch fish in a pond by choosing where to cast a line"
    assert pond["representativeQueries"] == ["fishing game", "cast a line at fish"]
    assert pond["data"]["license"] == "MIT"
    assert (
        pond["metadata"]["provenance"]["description"] == "envs/pond_env/discovery.json#description"
    )


def test_build_reports_unusable_metadata_as_incomplete(repo: Path, tmp_path: Path) -> None:
    bad = repo / "envs" / "bad_env"
    bad.mkdir()
    (bad / "openenv.yaml").write_text("name: bad\n")  # no description anywhere
    git(repo, "add", ".")
    git(repo, "commit", "-q", "-m", "bad")
    out = tmp_path / "catalog.json"
    done = build(repo, out)
    assert done.returncode == 1
    assert "complete=false" in done.stdout
    assert "error: envs/bad_env: Environment needs an authored task description" in done.stdout
    # an incomplete catalog is written (a report) but never searched
    found = run_cli("discover", "grid", "--catalog", str(out), cwd=tmp_path)
    assert (
        found.returncode == 1 and "Catalog error:" in found.stdout and "incomplete" in found.stdout
    )


@pytest.mark.parametrize(
    ("flags", "message"),
    [
        (["--repository-uri", "git@github.com:o/r.git"], "--repository-uri must be"),
        (["--publisher", "nodots"], "--publisher must be a DNS name"),
        (["--root", "../up"], "--root must be a plain relative path"),
        (["--revision", "no-such-ref"], "git rev-parse failed"),
    ],
)
def test_build_refuses_bad_input(
    repo: Path, tmp_path: Path, flags: list[str], message: str
) -> None:
    args = dict(zip(BUILD[::2], BUILD[1::2], strict=True))
    args.update(dict(zip(flags[::2], flags[1::2], strict=True)))
    argv = [x for pair in args.items() for x in pair]
    done = run_cli(
        "catalog", "build", "--repository", str(repo), *argv, "--output", str(tmp_path / "c.json"),
        cwd=tmp_path,
    )  # fmt: skip
    assert done.returncode == 1
    assert "Catalog error:" in done.stdout and message in done.stdout
    assert not (tmp_path / "c.json").exists()


@pytest.fixture
def catalog(repo: Path, tmp_path: Path) -> Path:
    out = tmp_path / "catalog.json"
    assert build(repo, out).returncode == 0
    return out


def test_discover_ranks_records_by_task(catalog: Path, tmp_path: Path) -> None:
    done = run_cli("discover", "a fishing game", "--catalog", str(catalog), cwd=tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    lines = done.stdout.splitlines()
    assert lines[0] == "pond: Catch fish in a pond by choosing where to cast a line"
    revision = json.loads(catalog.read_text())["source"]["revision"]
    assert lines[1:4] == [f"  source: {URI}", "  path: envs/pond_env", f"  revision: {revision}"]
    assert lines[4] == "  license: MIT; artifact: resolvable"
    assert lines[-1] == "Metadata only. Execution approval remains a separate decision."
    data = json.loads(
        run_cli(
            "discover", "fishing game", "--catalog", str(catalog), "--json", cwd=tmp_path
        ).stdout
    )
    assert [(r["displayName"], r["score"]) for r in data["results"]] == [
        ("pond", 100),
        ("wordle", 50),
    ]
    assert data["metadataOnly"] is True
    words = run_cli("discover", "word", "--catalog", str(catalog), "--filter", "tags=word-game",
                    cwd=tmp_path)  # fmt: skip
    assert words.stdout.startswith("wordle: ")
    bad = run_cli("discover", "x", "--catalog", str(catalog), "--filter", "color=red", cwd=tmp_path)
    assert bad.returncode == 1 and "unsupported filter 'color'" in bad.stdout
    from_env = run_cli("discover", "fishing", cwd=tmp_path,
                       env={**os.environ, "OPENENV_CATALOG": str(catalog)})  # fmt: skip
    assert from_env.stdout.startswith("pond: Catch fish")
    assert run_cli("discover", "x", "--catalog", str(catalog), "--limit", "0",
                   cwd=tmp_path).returncode == 1  # fmt: skip


def test_inspect_prints_one_record_and_refuses_edited_files(catalog: Path, tmp_path: Path) -> None:
    snapshot = json.loads(catalog.read_text())
    pond = next(e for e in snapshot["entries"] if e["displayName"] == "pond")
    done = run_cli(
        "catalog", "inspect", pond["identifier"], "--catalog", str(catalog), cwd=tmp_path
    )
    assert done.returncode == 0
    assert json.loads(done.stdout) == pond
    assert list(json.loads(done.stdout))[:3] == ["@context", "identifier", "displayName"]
    by_name = run_cli("catalog", "inspect", "pond", "--catalog", str(catalog), cwd=tmp_path)
    assert by_name.stdout == done.stdout
    missing = run_cli("catalog", "inspect", "nope", "--catalog", str(catalog), cwd=tmp_path)
    assert missing.returncode == 1 and "no record 'nope'" in missing.stdout
    catalog.write_text(catalog.read_text().replace("Catch fish", "Catch whales"))
    edited = run_cli("catalog", "inspect", "pond", "--catalog", str(catalog), cwd=tmp_path)
    assert edited.returncode == 1 and "does not match its digest" in edited.stdout
    catalog.write_text("{not json")
    broken = run_cli("catalog", "inspect", "pond", "--catalog", str(catalog), cwd=tmp_path)
    assert broken.returncode == 1 and "not a JSON catalog file" in broken.stdout


def test_discover_without_a_catalog_searches_the_installed_envs(tmp_path: Path) -> None:
    done = run_cli("discover", "chess", cwd=tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.startswith("chess: ")
    assert "  serve: openenv serve chess" in done.stdout


def test_discover_searches_hub_spaces(hub, tmp_path: Path) -> None:
    from fake_hub import openenv_cli

    hub.spaces.update(
        {
            "alice/chess-arena": {"tags": ["openenv", "docker"], "likes": 3},
            "bob/chess-bot": {"tags": ["docker"]},  # not an OpenEnv Space
            "carol/maze": {"tags": ["openenv"]},
        }
    )
    done = openenv_cli(["discover", "chess", "--hub"], hub, tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    lines = done.stdout.splitlines()
    assert lines[0] == "alice/chess-arena: https://huggingface.co/spaces/alice/chess-arena"
    assert "bob/chess-bot" not in done.stdout and "carol/maze" not in done.stdout
    assert "openenv playground alice/chess-arena" in done.stdout
    data = json.loads(openenv_cli(["discover", "--hub", "--json"], hub, tmp_path).stdout)
    assert [r["id"] for r in data["results"]] == ["alice/chess-arena", "carol/maze"]


def test_the_catalog_app_serves_from_a_catalog_file(catalog: Path) -> None:
    from openenv.core.registry import discover
    from openenv.web.catalog.app import create_catalog_app

    packages = [p for p in discover(ROOT / "envs") if p.name == "grid_world"]
    app = create_catalog_app(packages, catalog=catalog, remotes=[])
    with TestClient(app) as client:
        cards = {c["name"]: c for c in client.get("/api/envs").json()}
        assert set(cards) == {"grid_world", "pond", "wordle"}
        assert cards["grid_world"]["available"] is True
        assert client.get("/envs/grid_world/health").json()["status"] == "healthy"
        for name, path in (("pond", "envs/pond_env"), ("wordle", "envs/wordle_env")):
            assert cards[name]["available"] is False
            assert cards[name]["reason"].startswith("not installed here (example/envs@")
            assert cards[name]["reason"].endswith(f": {path})")
        assert cards["wordle"]["emoji"] == "🟩" or cards["wordle"]["emoji"]
        page = client.get("/").text
        assert "Catch fish in a pond" in page and "not installed here" in page
    # the file alone: the installed envs are looked up (wordle is installed; pond is not)
    with TestClient(create_catalog_app(catalog, remotes=[])) as client:
        cards = {c["name"]: c for c in client.get("/api/envs").json()}
        assert cards["wordle"]["available"] is True and cards["pond"]["available"] is False


def test_serve_refuses_a_file_that_is_no_catalog(tmp_path: Path) -> None:
    bad = tmp_path / "notes.json"
    bad.write_text("[]")
    done = run_cli("serve", str(bad), "--port", "1", cwd=tmp_path)
    assert done.returncode == 1 and "is not a catalog of the 0.1-draft profile" in done.stdout


# -- against the reference 0.10 CLI ---------------------------------------------------------


@pytest.fixture(scope="module")
def ref_openenv() -> Path:
    sys.path.insert(0, str(ROOT / "tests" / "compat"))
    from refvenv import ensure_ref_venv

    return ensure_ref_venv().parent / "openenv"


def ref(ref_openenv: Path, *args: str, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run(
        [str(ref_openenv), *args], cwd=cwd, capture_output=True, text=True, timeout=300
    )


REF_RUNNER = """
import json, sys
from typer.testing import CliRunner
from openenv.cli.__main__ import app

outputs = []
for args in json.loads(sys.argv[1]):
    result = CliRunner().invoke(app, args)
    outputs.append([result.exit_code, result.stdout])
print(json.dumps(outputs))
"""


@pytest.mark.compat
def test_the_reference_reads_our_catalog_as_we_do(
    ref_openenv: Path, catalog: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from openenv.cli.main import main

    commands = [
        ["catalog", "inspect", entry["identifier"], "--catalog", str(catalog)]
        for entry in json.loads(catalog.read_text())["entries"]
    ]
    for query in ("fishing game", "grid", "word guess game", ""):
        for extra in ([], ["--json"]):
            commands.append(["discover", query, "--catalog", str(catalog), *extra])
    python = ref_openenv.parent / "python"
    done = subprocess.run(
        [str(python), "-c", REF_RUNNER, json.dumps(commands)],
        cwd=tmp_path, capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    theirs = json.loads(done.stdout.splitlines()[-1])
    for args, (code, output) in zip(commands, theirs, strict=True):
        assert code == 0 and output.strip(), (args, output)
        capsys.readouterr()
        assert main(args) == 0
        assert capsys.readouterr().out == output, args


@pytest.mark.compat
def test_we_read_the_references_catalog_and_build_the_same_records(
    ref_openenv: Path, repo: Path, catalog: Path, tmp_path: Path
) -> None:
    theirs_file = tmp_path / "ref-catalog.json"
    args = ["catalog", "build", "--repository", str(repo), *BUILD, "--output", str(theirs_file)]
    done = ref(ref_openenv, *args, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    ours, theirs = json.loads(catalog.read_text()), json.loads(theirs_file.read_text())
    assert ours.keys() == theirs.keys()
    assert ours["inventory"] == theirs["inventory"] and ours["source"] == theirs["source"]
    for mine, other in zip(ours["entries"], theirs["entries"], strict=True):
        assert mine.keys() == other.keys()
        # the same record, but our tags also come from openenv.yaml (the reference reads only
        # discovery.json or the README's front matter), and our metadata says how to show it
        for key in set(mine) - {"tags", "metadata"}:
            assert mine[key] == other[key], key
        assert set(other["tags"]) <= set(mine["tags"])
        assert mine["metadata"]["provenance"] == other["metadata"]["provenance"]
    pond = next(e for e in theirs["entries"] if e["displayName"] == "pond")
    done = run_cli("catalog", "inspect", pond["identifier"], "--catalog", str(theirs_file),
                   cwd=tmp_path)  # fmt: skip
    assert done.returncode == 0 and json.loads(done.stdout) == pond
    found = run_cli("discover", "fishing", "--catalog", str(theirs_file), cwd=tmp_path)
    assert found.stdout.startswith("pond: ")


def test_discover_prints_no_control_characters_from_a_catalog(repo: Path, tmp_path: Path) -> None:
    evil = repo / "envs" / "evil_env"
    evil.mkdir()
    (evil / "openenv.yaml").write_text(
        'name: evil\ndescription: "Evil \\e[2J\\e]0;owned\\a task"\n'
    )
    git(repo, "add", ".")
    git(repo, "commit", "-q", "-m", "evil")
    out = tmp_path / "catalog.json"
    assert build(repo, out).returncode == 0
    assert "\x1b[2J" in json.loads(out.read_text())["entries"][0]["description"]
    done = run_cli("discover", "evil task", "--catalog", str(out), cwd=tmp_path)
    assert done.stdout.startswith("evil: Evil ?[2J?]0;owned? task\n")
    assert "\x1b" not in done.stdout and "\a" not in done.stdout
