"""Extract the code blocks of the seed documentation into ``tests/compat/seed_snippets/``.

    python tests/compat/extract_seed_snippets.py [DOCS] [--check]

``DOCS`` defaults to ``/work/shared/seed/openenv-docs.txt`` (the documentation of the
``openenv`` 0.10 system we implement). The file is plain text: pages start with a line
``<Title> (`<path>.md`) Copy Section``, chapters and sections with ``<Title> Copy Chapter`` /
``<Title> Copy Section``, and code blocks carry no fences. A block is found by what it is:

* Python: a run of blank-line-separated paragraphs that compiles (top-level ``await``
  allowed, as in a notebook), the longest such run from its first paragraph, that does more
  than name things (an import, a definition, a call, an assignment, a ``with``);
* shell: paragraphs whose lines are commands (``openenv``, ``docker``, ``pip``, ``uv``,
  ``curl``, ...), comments, or continuations (a trailing ``\\``, an open quote).

Only the pages of what we implement are read (``PAGES``); the others are listed in
``OTHER_PAGES`` with the reason, and tests/test_seed_snippets.py checks every page of the
documentation is in one of the two. Each block is written verbatim (the code exactly as in the
doc, nothing added) to ``<page>__<section>__L<line>.py`` or ``.sh``, ``<line>`` being the
1-based line of its first line in the doc. ``--check`` writes nothing and exits 1 when the
committed snippets differ from a fresh extraction.
"""

from __future__ import annotations

import argparse
import ast
import re
import sys
from dataclasses import dataclass
from pathlib import Path

DOCS = Path("/work/shared/seed/openenv-docs.txt")
OUT = Path(__file__).resolve().parent / "seed_snippets"

# The pages of what we implement, and the short name each one's snippets carry.
PAGES = {
    "README.md": "readme",
    "docs/source/getting-started.md": "getting-started",
    ".claude/docs/PATTERNS.md": "patterns",
    "docs/source/environments/atari.md": "atari",
    "docs/source/environments/chess.md": "chess",
    "docs/source/environments/coding.md": "coding",
    "docs/source/environments/connect4.md": "connect4",
    "docs/source/environments/dm_control.md": "dm-control",
    "docs/source/environments/echo.md": "echo",
    "docs/source/environments/grid_world.md": "grid-world",
}

_NOT_SHIPPED = "an environment we do not ship"
_PROCESS = "the reference project's own development process, not the API"
OTHER_PAGES = {
    "docs/README.md": "building the reference's documentation site (hf-doc-builder)",
    "docs/source/index.md": "a landing page: no code",
    "docs/source/reference/index.md": "a table of contents: no code",
    "docs/source/tutorials/index.md": "a table of contents: no code",
    ".claude/docs/CONTRIBUTING.md": _PROCESS,
    ".claude/docs/INVARIANTS.md": _PROCESS,
    ".claude/docs/PRINCIPLES.md": _PROCESS,
    ".claude/docs/REPO_WALKTHROUGH.md": "the reference repository's file tree",
    ".claude/docs/TESTING_STRATEGY.md": _PROCESS + " (examples of its own test suite)",
    "docs/plans/rfc008-level2-implementation.md": "a plan for the reference's validator",
    "docs/source/contributing.md": _PROCESS,
    "docs/source/environments.md": "the catalog of the reference's environments: no code",
    "docs/source/environments/agent_world_model.md": _NOT_SHIPPED,
    "docs/source/environments/browsergym.md": _NOT_SHIPPED,
    "docs/source/environments/calendar.md": _NOT_SHIPPED,
    "docs/source/environments/carla.md": _NOT_SHIPPED,
    "docs/source/environments/chat.md": _NOT_SHIPPED,
    "docs/source/environments/coding_tools.md": _NOT_SHIPPED,
    "docs/source/environments/dipg.md": _NOT_SHIPPED,
    "docs/source/environments/finqa.md": _NOT_SHIPPED,
    "docs/source/environments/finrl.md": _NOT_SHIPPED,
    "docs/source/environments/git.md": _NOT_SHIPPED,
    "docs/source/environments/harbor.md": _NOT_SHIPPED + " (Harbor agent harnesses)",
}

PAGE = re.compile(r"^(?P<title>.+?) \((?P<q>`?)(?P<path>[\w./-]+\.md)(?P=q)\) Copy Section$")
HEADING = re.compile(r"^(?P<title>.+?) Copy (?:Chapter|Section)$")
COMMANDS = {
    "openenv", "docker", "pip", "uv", "cd", "curl", "python", "python3", "export", "uvicorn",
    "git", "source", "bash", "sh", "hf", "huggingface-cli",
}  # fmt: skip
ENV_ASSIGNMENT = re.compile(r"^[A-Z_][A-Z0-9_]*=\S*$")
DOING = (
    ast.Import, ast.ImportFrom, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef,
    ast.With, ast.AsyncWith, ast.Assign, ast.For, ast.AsyncFor, ast.While, ast.Try,
)  # fmt: skip


@dataclass(frozen=True)
class Snippet:
    """One code block: where it is in the doc and its text."""

    page: str  # the short name from PAGES
    section: str  # the nearest heading above it, slugged
    line: int  # 1-based line of its first line in the doc
    kind: str  # "py" or "sh"
    code: str

    @property
    def filename(self) -> str:
        return f"{self.page}__{self.section}__L{self.line}.{self.kind}"


def slug(title: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", title.lower()).strip("-") or "top"


def pages(lines: list[str]) -> list[tuple[str, int, int]]:
    """``(path, first line index, end index)`` of every page of the doc."""
    starts = [(i, m["path"]) for i, line in enumerate(lines) if (m := PAGE.match(line))]
    ends = [i for i, _ in starts[1:]] + [len(lines)]
    return [(path, start, end) for (start, path), end in zip(starts, ends, strict=True)]


def paragraphs(lines: list[str], start: int, end: int) -> list[tuple[int, list[str]]]:
    """Blank-line-separated paragraphs of ``lines[start:end]``: ``(first index, lines)``."""
    found: list[tuple[int, list[str]]] = []
    for i in range(start, end):
        if not lines[i].strip():
            continue
        if found and found[-1][0] + len(found[-1][1]) == i:  # the line after the paragraph's
            found[-1][1].append(lines[i])
        else:
            found.append((i, [lines[i]]))
    return found


def _compiles(text: str) -> ast.Module | None:
    try:
        return compile(text, "<doc>", "exec", ast.PyCF_ONLY_AST | ast.PyCF_ALLOW_TOP_LEVEL_AWAIT)
    except (SyntaxError, ValueError):
        return None


def _does_something(tree: ast.Module) -> bool:
    for node in tree.body:
        if isinstance(node, DOING):
            return True
        if isinstance(node, ast.Expr) and isinstance(node.value, ast.Call | ast.Await):
            return True
    return False


def _text(lines: list[str], paras: list[tuple[int, list[str]]]) -> str:
    """The doc's lines from the first paragraph's first line to the last one's last, verbatim
    (blank lines between them included)."""
    first, (last, tail) = paras[0][0], paras[-1]
    return "\n".join(lines[first : last + len(tail)]) + "\n"


def python_run(lines: list[str], paras: list[tuple[int, list[str]]], k: int) -> int:
    """How many paragraphs from ``paras[k]`` make the longest Python block (0: none)."""
    best = 0
    for n in range(1, len(paras) - k + 1):
        tree = _compiles(_text(lines, paras[k : k + n]))
        if tree is not None and _does_something(tree):
            best = n
    return best


def _shell_line(line: str) -> bool:
    words = line.split()
    if words and words[-1].endswith(".") and words[-1].strip(".") != "":
        return False  # a sentence ("... and cleans up."), not a command ("docker build .")
    while words and ENV_ASSIGNMENT.match(words[0]):
        words = words[1:]
    return not words or words[0] in COMMANDS or words[0].startswith("./")


def is_shell(para: list[str]) -> bool:
    """Every line a command, a comment or a continuation, and at least one command."""
    commands, continued, quoted = 0, False, False
    for line in para:
        text = line.strip()
        if not (continued or quoted):
            if text.startswith("#"):
                continue
            if not _shell_line(text):
                return False
            commands += 1
        quoted ^= text.count('"') % 2 == 1
        continued = text.endswith("\\")
    return commands > 0


def shell_run(paras: list[tuple[int, list[str]]], k: int) -> int:
    """How many paragraphs from ``paras[k]`` make a shell block (0: none)."""
    n = 0
    while k + n < len(paras) and is_shell(paras[k + n][1]):
        n += 1
    return n


def snippets(doc: str) -> list[Snippet]:
    """Every code block of the pages in ``PAGES``, in the order of the doc."""
    lines = doc.splitlines()
    found: list[Snippet] = []
    for path, start, end in pages(lines):
        if path not in PAGES:
            continue
        paras, k = paragraphs(lines, start + 1, end), 0
        while k < len(paras):
            kind, n = "py", python_run(lines, paras, k)
            if n == 0:
                kind, n = "sh", shell_run(paras, k)
            if n == 0:  # prose
                k += 1
                continue
            first = paras[k][0]
            section = _section(lines, start, first)
            code = _text(lines, paras[k : k + n])
            found.append(Snippet(PAGES[path], section, first + 1, kind, code))
            k += n
    return found


def _section(lines: list[str], page_start: int, index: int) -> str:
    for i in range(index - 1, page_start, -1):
        if m := HEADING.match(lines[i]):
            return slug(m["title"])
    return "top"


def extract(docs: Path = DOCS) -> dict[str, str]:
    """``{filename: code}`` of a fresh extraction of ``docs``."""
    return {s.filename: s.code for s in snippets(docs.read_text(encoding="utf-8"))}


def committed(out: Path = OUT) -> dict[str, str]:
    """``{filename: code}`` of the snippets in ``out``."""
    found = sorted([*out.glob("*.py"), *out.glob("*.sh")])
    return {p.name: p.read_text(encoding="utf-8") for p in found}


def write(found: dict[str, str], out: Path = OUT) -> None:
    out.mkdir(parents=True, exist_ok=True)
    for stale in set(committed(out)) - set(found):
        (out / stale).unlink()
    for name, code in found.items():
        (out / name).write_text(code, encoding="utf-8")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("docs", nargs="?", type=Path, default=DOCS)
    parser.add_argument("--check", action="store_true", help="compare, write nothing")
    args = parser.parse_args(argv)
    found = extract(args.docs)
    if args.check:
        stale = sorted(set(found.items()) ^ set(committed().items()))
        for name, _ in stale:
            print(f"differs: {name}")
        return 1 if stale else 0
    write(found)
    print(f"{len(found)} snippets in {OUT}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
