"""What the playground shows of a git workspace: the clone in view, its working tree (each
file with its ``git status`` code) and ``git log --graph --oneline --all``, then the last
action and its output. Read through the sandbox, like everything else."""

from __future__ import annotations

from dataclasses import dataclass, field

from git_env.models import GitState
from openenv.sandbox.shell import Shell

SHOWN_LINES = 30
_LOOK = r"""cd "$1" 2>/dev/null || exit 3
echo "--branch"; git branch --show-current
echo "--status"; git status --porcelain=v1 -uall
echo "--files"; git ls-files -co --exclude-standard
echo "--log"; git log --graph --oneline --decorate --all -n 25
"""


@dataclass(frozen=True)
class GitView:
    branch: str = ""
    status: dict[str, str] = field(default_factory=dict)  # path: two-letter status code
    files: tuple[str, ...] = ()
    log: str = ""


def look(shell: Shell, clone: str, env: dict[str, str]) -> GitView | None:
    """The clone at ``clone`` as the view shows it; None when it is gone."""
    result = shell.run(["bash", "-c", _LOOK, "bash", clone], env=env)
    if result.exit_code == 3 or result.sandbox_error:
        return None
    sections: dict[str, list[str]] = {}
    current = None
    for line in result.output.splitlines():
        if line.startswith("--") and line[2:] in ("branch", "status", "files", "log"):
            current = sections.setdefault(line[2:], [])
        elif current is not None:
            current.append(line)
    status = {line[3:]: line[:2] for line in sections.get("status", []) if len(line) > 3}
    return GitView(
        branch=" ".join(sections.get("branch", [])).strip(),
        status=status,
        files=tuple(sections.get("files", [])),
        log="\n".join(sections.get("log", [])),
    )


def draw(
    state: GitState, focus: str | None, view: GitView, last: tuple[str, str], repos: list[str]
) -> str:
    lines = []
    if state.instruction:
        lines += [f"Task {state.task_id}: {state.instruction}", ""]
    if focus is None:
        lines += [
            "~  (nothing cloned yet)",
            f"Repositories: {', '.join(repos)}: press Clone, or step "
            "action_type=clone_repo with repo_name",
        ]
    else:
        branch = view.branch or "(detached HEAD)"
        lines += [f"~/{focus}  ·  branch {branch}", "", "working tree"]
        paths = sorted(set(view.files) | set(view.status))
        lines += [f"  {view.status.get(p, '  ')} {p}" for p in paths] or ["  (empty)"]
        lines += ["", "git log --graph --oneline --all", view.log or "  (no commits)"]
    label, output = last
    if label:
        shown = output.splitlines()
        if len(shown) > SHOWN_LINES:
            shown = [*shown[:SHOWN_LINES], f"[... {len(shown) - SHOWN_LINES} more lines]"]
        lines += ["", f"last: {label}", *shown]
    return "\n".join(lines)
