"""The shipped tasks of the git environment and their checkers.

Each task names a shipped repository (cloned into ``~/<repo>`` at reset) and what to do with
it. The checker runs in the session's sandbox, on what the agent *committed* (and, for a push,
on the session's ``origin``), never on the working tree: it exports the commit into a scratch
directory, puts the repository's original tests and ``run_tests.py`` back (taken from the
shared repository, so editing the tests gains nothing) and runs them. Scores are in [0, 1].
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from git_env.server.store import Repo
from openenv.sandbox.shell import Shell

ORIGINS = "/tmp/origin"  # the per-session copies of the shared repositories, in the sandbox

_TESTS = r"""
d=$(mktemp -d /tmp/oe-check-XXXXXX)
if ! git -C "$1" archive "$2" 2>/dev/null | tar -x -C "$d" 2>/dev/null; then
  echo "tests_exit=none"; exit 0
fi
git --git-dir="$3" archive "$4" tests run_tests.py | tar -x -C "$d"
out=$(cd "$d" && PYTHONDONTWRITEBYTECODE=1 python3 run_tests.py 2>&1); code=$?
echo "tests_exit=$code"
echo "summary=$(printf '%s\n' "$out" | tail -n 1)"
rm -rf "$d"
"""
_ANCESTOR = r"""git -C "$1" merge-base --is-ancestor "$2" "$3" 2>/dev/null && echo kept=1 \
  || echo kept=0
"""
_PUSHED = r"""o=$1
git --git-dir="$o" rev-parse -q --verify "refs/heads/$2" >/dev/null && echo pushed=1 \
  || echo pushed=0
echo "first=$(git --git-dir="$o" show "$2:TODO.md" 2>/dev/null | head -n 1)"
echo "main=$(git --git-dir="$o" rev-parse -q --verify refs/heads/main)"
git --git-dir="$o" merge-base --is-ancestor "$3" "refs/heads/$2" 2>/dev/null && echo based=1 \
  || echo based=0
"""


def origin_of(repo: str) -> str:
    return f"{ORIGINS}/{repo}.git"


@dataclass(frozen=True)
class Verdict:
    score: float
    reason: str


class Task(Protocol):
    name: str
    repo: str
    instruction: str

    def check(self, shell: Shell, repo: Repo, clone: str, env: dict[str, str]) -> Verdict: ...


def _facts(shell: Shell, script: str, args: list[str], env: dict[str, str]) -> dict[str, str]:
    result = shell.run(["bash", "-c", script, "bash", *args], env=env)
    facts = {}
    for line in result.output.splitlines():
        key, sep, value = line.partition("=")
        if sep:
            facts[key.strip()] = value.strip()
    return facts


def _tests(shell: Shell, clone: str, ref: str, repo: Repo, env: dict[str, str]) -> tuple[bool, str]:
    facts = _facts(shell, _TESTS, [clone, ref, repo.path, repo.head], env)
    if facts.get("tests_exit") == "none":
        return False, f"there is no {ref} in {clone.rsplit('/', 1)[-1]}"
    return facts.get("tests_exit") == "0", facts.get("summary", "the tests did not run")


class FixFailingTest:
    name = "fix_failing_test"
    repo = "calculator"
    instruction = (
        "The test suite of ~/calculator fails (python3 run_tests.py). Fix the bug in calc.py, "
        "not the tests, and commit the fix on main. Then submit."
    )

    def check(self, shell: Shell, repo: Repo, clone: str, env: dict[str, str]) -> Verdict:
        passed, summary = _tests(shell, clone, "main", repo, env)
        if passed:
            return Verdict(1.0, f"the committed main passes the tests ({summary})")
        return Verdict(0.0, f"the committed main fails the tests ({summary})")


class RevertCommit:
    name = "revert_commit"
    repo = "greeter"
    instruction = (
        "The last commit on main of ~/greeter ('Shout greetings') broke the tests. Undo it "
        "with a new commit, without rewriting history (git revert), so that the tests pass "
        "on main. Then submit."
    )

    def check(self, shell: Shell, repo: Repo, clone: str, env: dict[str, str]) -> Verdict:
        passed, summary = _tests(shell, clone, "main", repo, env)
        kept = _facts(shell, _ANCESTOR, [clone, repo.head, "main"], env).get("kept") == "1"
        if passed and kept:
            return Verdict(1.0, f"reverted with history kept ({summary})")
        if passed:
            return Verdict(0.5, f"the tests pass but the history was rewritten ({summary})")
        return Verdict(0.0, f"the committed main fails the tests ({summary})")


class FeatureBranch:
    name = "feature_branch"
    repo = "notes"
    branch = "feature/todo"
    instruction = (
        "In ~/notes, create a branch feature/todo from main, add a file TODO.md whose first "
        "line is '# TODO', commit it on that branch and push the branch to origin. Leave main "
        "as it is. Then submit."
    )

    def check(self, shell: Shell, repo: Repo, clone: str, env: dict[str, str]) -> Verdict:
        args = [origin_of(self.repo), self.branch, repo.head]
        facts = _facts(shell, _PUSHED, args, env)
        if facts.get("pushed") != "1":
            return Verdict(0.0, f"origin has no branch {self.branch}")
        parts = {
            "TODO.md starts with '# TODO'": 0.6 if facts.get("first") == "# TODO" else 0.0,
            "the branch starts from main": 0.2 if facts.get("based") == "1" else 0.0,
            "main is unchanged on origin": 0.2 if facts.get("main") == repo.head else 0.0,
        }
        met = [what for what, score in parts.items() if score]
        missed = [what for what, score in parts.items() if not score]
        reason = "pushed; " + "; ".join(met + [f"not: {m}" for m in missed])
        return Verdict(round(sum(parts.values()), 4), reason)


TASKS: dict[str, Task] = {t.name: t for t in (FixFailingTest(), RevertCommit(), FeatureBranch())}
