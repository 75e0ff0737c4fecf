"""The shared bare repositories, built from :mod:`git_env.server.repos` once per process.

They live in ``<base>/openenv-git-<uid>-<digest>``, where ``<base>`` is ``GIT_ENV_DATA_DIR``
(default ``/var/tmp``) and ``<digest>`` names the shipped data: built once into a scratch
directory beside it, then renamed into place (atomic, so concurrent servers agree), and reused
by every later server of the same data and user: nothing to clean up when a server is killed.
An existing directory is used only if this user owns it and nobody else may write to it.
Everything in it is readable by everyone (the sandboxes, under their own uids, clone from it)
and written by nobody after the build: the sandboxes see the host's files read-only, so an
agent clones from here, never pushes here (its clone's ``origin`` is a per-session copy in its
sandbox, see the environment). The base must not be under ``/tmp`` or ``/dev/shm``: those are
private, empty tmpfs mounts inside each sandbox. A ``gitconfig`` beside the repositories (the
sandbox's ``GIT_CONFIG_GLOBAL``) names the agent and trusts repositories of other owners.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import stat
import subprocess
import tempfile
import threading
from dataclasses import dataclass
from pathlib import Path

from git_env.server.repos import REPOS, RepoSpec

DATA_DIR_VAR = "GIT_ENV_DATA_DIR"
EPOCH = 1_714_564_800  # 2024-05-01T12:00:00Z: the shipped commits are one hour apart
AUTHOR = ("OpenEnv", "repos@openenv.local")
GITCONFIG = """[user]
\tname = OpenEnv Agent
\temail = agent@openenv.local
[safe]
\tdirectory = *
[init]
\tdefaultBranch = main
[core]
\tpager = cat
[color]
\tui = never
[advice]
\tdetachedHead = false
"""
_PRIVATE = ("/tmp", "/dev/shm")


class StoreUnavailable(RuntimeError):
    """The repositories could not be built (git missing, an unusable data directory)."""


@dataclass(frozen=True)
class Repo:
    """A shipped repository: where its bare repository is and its commits (oldest first)."""

    name: str
    description: str
    path: str
    commits: tuple[str, ...]

    @property
    def head(self) -> str:
        return self.commits[-1]


class RepoStore:
    """The bare repositories of :data:`~git_env.server.repos.REPOS` under ``root``."""

    def __init__(self, root: Path, repos: dict[str, Repo]) -> None:
        self.root = root
        self.repos = repos
        self.gitconfig = str(root / "gitconfig")


_lock = threading.Lock()
_store: RepoStore | None = None


def shared_store() -> RepoStore:
    """The process's store: the one already built for this data and user, or a new one."""
    global _store
    with _lock:
        if _store is None:
            _store = _open(_base_dir())
        return _store


def _sandboxes_have_private_tmp() -> bool:
    """Whether sandboxes here get their own /tmp (not where namespaces cannot be made and
    CODING_ALLOW_UNISOLATED=on lets code share the server's, as in a hardened container)."""
    from openenv.sandbox import SandboxLimits
    from openenv.sandbox.isolation import isolation

    limits = SandboxLimits.from_env()
    return isolation(network=limits.network, allow_unisolated=limits.allow_unisolated).private


def _base_dir() -> Path:
    base = Path(os.environ.get(DATA_DIR_VAR) or "/var/tmp").resolve()
    private = any(str(base) == p or str(base).startswith(p + "/") for p in _PRIVATE)
    if private and _sandboxes_have_private_tmp():
        raise StoreUnavailable(
            f"git_env's repositories cannot live in {base}: /tmp and /dev/shm are private "
            f"inside every sandbox, so the agent could not clone from there; set "
            f"{DATA_DIR_VAR} to a directory elsewhere (e.g. /var/tmp)"
        )
    base.mkdir(parents=True, exist_ok=True)
    return base


def _digest() -> str:
    data = json.dumps([GITCONFIG, EPOCH, AUTHOR, repr(sorted(REPOS.items()))])
    return hashlib.sha256(data.encode("utf-8")).hexdigest()[:12]


def _open(base: Path) -> RepoStore:
    root = base / f"openenv-git-{os.getuid()}-{_digest()}"
    if not _trusted(root):
        scratch = Path(tempfile.mkdtemp(prefix=f"{root.name}.build-", dir=base))
        try:
            _build(scratch)
            os.rename(scratch, root)  # atomic; fails if another server got there first
        except OSError:
            if not _trusted(root):
                raise StoreUnavailable(f"cannot build git_env's repositories in {root}") from None
        finally:
            shutil.rmtree(scratch, ignore_errors=True)
    manifest = json.loads((root / "repos.json").read_text(encoding="utf-8"))
    repos = {
        name: Repo(name, entry["description"], str(root / f"{name}.git"), tuple(entry["commits"]))
        for name, entry in manifest.items()
    }
    return RepoStore(root, repos)


def _trusted(root: Path) -> bool:
    """A finished store that only this user could have written."""
    try:
        info = os.lstat(root)
    except FileNotFoundError:
        return False
    if not stat.S_ISDIR(info.st_mode) or info.st_uid != os.getuid() or info.st_mode & 0o022:
        raise StoreUnavailable(
            f"{root} exists but is not a directory of this user that only it may write: "
            f"remove it, or set {DATA_DIR_VAR} to another directory"
        )
    return (root / "repos.json").is_file()


def _build(root: Path) -> None:
    if shutil.which("git") is None:
        raise StoreUnavailable("git_env needs git: apt-get install git")
    (root / "gitconfig").write_text(GITCONFIG, encoding="utf-8")
    manifest = {}
    with tempfile.TemporaryDirectory(prefix="openenv-git-work-") as work:
        for spec in REPOS.values():
            repo = _build_repo(spec, root, Path(work) / spec.name)
            manifest[spec.name] = {"description": repo.description, "commits": repo.commits}
    (root / "repos.json").write_text(json.dumps(manifest, indent=1), encoding="utf-8")
    for path in [root, *root.rglob("*")]:  # readable by the sandboxes' own uids
        path.chmod(0o755 if path.is_dir() else 0o644)


def _build_repo(spec: RepoSpec, root: Path, work: Path) -> Repo:
    bare = root / f"{spec.name}.git"
    shutil.rmtree(bare, ignore_errors=True)
    _git("init", "-q", "-b", "main", str(work))
    commits = []
    for i, commit in enumerate(spec.commits):
        for rel, text in commit.files.items():
            path = work / rel
            if text is None:
                path.unlink(missing_ok=True)
                continue
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8")
        _git("-C", str(work), "add", "-A")
        _git("-C", str(work), "commit", "-q", "-m", commit.message, when=EPOCH + 3600 * i)
        commits.append(_git("-C", str(work), "rev-parse", "HEAD").strip())
    _git("clone", "-q", "--bare", str(work), str(bare))
    (bare / "description").write_text(spec.description + "\n", encoding="utf-8")
    return Repo(spec.name, spec.description, str(bare), tuple(commits))


def _git(*args: str, when: int = EPOCH) -> str:
    env = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": "/nonexistent",
        "GIT_CONFIG_NOSYSTEM": "1",
        "GIT_CONFIG_GLOBAL": "/dev/null",
        "GIT_AUTHOR_NAME": AUTHOR[0],
        "GIT_AUTHOR_EMAIL": AUTHOR[1],
        "GIT_COMMITTER_NAME": AUTHOR[0],
        "GIT_COMMITTER_EMAIL": AUTHOR[1],
        "GIT_AUTHOR_DATE": f"@{when} +0000",
        "GIT_COMMITTER_DATE": f"@{when} +0000",
    }
    try:
        done = subprocess.run(
            ["git", *args], env=env, capture_output=True, text=True, timeout=60, check=True
        )
    except (OSError, subprocess.SubprocessError) as exc:
        detail = getattr(exc, "stderr", "") or str(exc)
        raise StoreUnavailable(f"building git_env's repositories failed: {detail}") from exc
    return done.stdout
