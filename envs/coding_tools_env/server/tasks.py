"""Shipped tasks: setup and verify commands (as the reference's reset takes them) with an
instruction, so a visitor can press Reset and play. Written for this package.

* ``fix_add`` (the default): ``calc.py`` subtracts in ``add()``; two verify commands import it.
* ``answer_file``: the documentation's quick start (write ``answer.txt``).
* ``rename_setting``: rename a setting across three files; the verify command writes the share of
  files done to the reward file (``/home/user/logs/verifier/reward.txt``), which overrides the
  pass rate: partial credit.
* ``free``: no task, a sandbox with the tools (submitting scores nothing).
"""

from __future__ import annotations

from dataclasses import dataclass, field

CALC = '''\
def add(a, b):
    """Return the sum of a and b."""
    return a - b


def mean(values):
    """Return the arithmetic mean of a non-empty list of numbers."""
    return add(0, sum(values)) / len(values)
'''

SETTINGS = {
    "app/config.py": "DEBUG_MODE = False\nTIMEOUT_S = 30\n",
    "app/server.py": "from config import DEBUG_MODE\n\n\ndef banner():\n"
    "    return 'debug' if DEBUG_MODE else 'quiet'\n",
    "app/README.md": "Set DEBUG_MODE in config.py to get a chatty server.\n",
}

RENAME_CHECK = r"""python3 - <<'PY'
import pathlib
home = pathlib.Path("/home/user")
files = ["app/config.py", "app/server.py", "app/README.md"]
done = sum(
    "DEBUG_MODE" not in (home / f).read_text() and "VERBOSE" in (home / f).read_text()
    for f in files if (home / f).is_file()
)
(home / "logs/verifier/reward.txt").write_text(f"{done / len(files):.4f}\n")
print(f"{done}/{len(files)} files renamed")
PY"""


def _heredoc(path: str, text: str) -> str:
    return f"mkdir -p \"$(dirname {path})\" && cat > {path} <<'OE_EOF'\n{text}OE_EOF"


@dataclass(frozen=True)
class Task:
    """A shipped task: what the agent reads, how the sandbox is prepared, how it is checked."""

    name: str
    instruction: str
    setup: list[str] = field(default_factory=list)
    verify: list[str] = field(default_factory=list)
    files: tuple[str, ...] = ()  # the files the playground offers to read


TASKS: dict[str, Task] = {
    "fix_add": Task(
        name="fix_add",
        instruction=(
            "/home/user/work/calc.py has a bug: add(2, 3) does not give 5. Fix it (read, edit), "
            "then call submit_solution: two verify commands import calc and check add and mean."
        ),
        setup=[_heredoc("/home/user/work/calc.py", CALC)],
        verify=[
            'cd /home/user/work && python3 -c "from calc import add; assert add(2, 3) == 5"',
            'cd /home/user/work && python3 -c "from calc import mean; assert mean([1, 2, 6]) == 3"',
        ],
        files=("/home/user/work/calc.py",),
    ),
    "answer_file": Task(
        name="answer_file",
        instruction="Write 'done' into /home/user/work/answer.txt, then call submit_solution.",
        setup=["mkdir -p /home/user/work"],
        verify=[
            "test -f /home/user/work/answer.txt",
            "grep -qx done /home/user/work/answer.txt",
        ],
    ),
    "rename_setting": Task(
        name="rename_setting",
        instruction=(
            "Rename the setting DEBUG_MODE to VERBOSE everywhere under /home/user/app (three "
            "files; grep finds them), then call submit_solution. The reward is the share of "
            "files renamed."
        ),
        setup=[_heredoc(f"/home/user/{path}", text) for path, text in SETTINGS.items()],
        verify=[RENAME_CHECK],
        files=tuple(f"/home/user/{path}" for path in SETTINGS),
    ),
    "free": Task(
        name="free",
        instruction="No task: a sandbox with the tools (submit_solution has nothing to check).",
    ),
}
DEFAULT_TASK = "fix_add"
