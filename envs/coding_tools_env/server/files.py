"""The file tools (read, write, edit, multi_edit, glob, grep, ls), run *inside* the sandbox.

The server never opens a path the agent named: each call sends :data:`HELPER` (standard
library only) with its arguments to the workspace's Python, which answers one JSON line
``{"ok": bool, "text": str, "path": str}``. Paths are absolute or relative to the home, and
``/home/user`` (E2B's home) is the sandbox's home, whatever the provider. What comes back is
bounded (``limit`` characters, lines cut at ``LINE_CHARS``, at most ``MAX_MATCHES`` matches).
"""

from __future__ import annotations

import json
from typing import Any

from coding_tools_env.server.providers import HOME, Workspace

MAX_MATCHES = 200
LINE_CHARS = 2000

HELPER = r"""
import fnmatch as _fn, json as _js, os as _os, pathlib as _pl, re as _re

_H = _os.environ.get("HOME") or "/home/user"
_SHOWN = "/home/user"


def _path(p):
    p = p or "."
    if p == _SHOWN or p.startswith(_SHOWN + "/"):
        p = _H + p[len(_SHOWN):]
    return _os.path.normpath(_os.path.join(_H, p))


def _show(p):
    if p == _H or p.startswith(_H + "/"):
        return _SHOWN + p[len(_H):]
    return p


def _cut(line, n):
    return line if len(line) <= n else line[:n] + " [...]"


def _text(p):
    with open(p, "rb") as f:
        raw = f.read()
    if b"\0" in raw[:8192]:
        raise ValueError(_show(p) + " is a binary file")
    return raw.decode("utf-8", "replace")


def _write(p, text):
    _os.makedirs(_os.path.dirname(p) or "/", exist_ok=True)
    with open(p, "w", encoding="utf-8") as f:
        f.write(text)


def _apply(text, edits, p):
    for i, e in enumerate(edits, 1):
        old, new = e["old_string"], e["new_string"]
        where = "" if len(edits) == 1 else f"edit {i}: "
        if old == new:
            raise ValueError(where + "old_string and new_string are the same")
        if old == "":
            raise ValueError(where + "old_string is empty (use write to create a file)")
        n = text.count(old)
        if n == 0:
            raise ValueError(where + "old_string not found in " + _show(p))
        if n > 1 and not e.get("replace_all"):
            raise ValueError(where + f"old_string occurs {n} times in {_show(p)}: give more "
                             "context to make it unique, or set replace_all")
        text = text.replace(old, new) if e.get("replace_all") else text.replace(old, new, 1)
    return text


def _walk(root, skip_hidden=True):
    for d, dirs, files in _os.walk(root):
        dirs[:] = sorted(x for x in dirs if not (skip_hidden and x.startswith(".")))
        for f in sorted(files):
            yield _os.path.join(d, f)


def _op(op, a, lim):
    if op == "read":
        p = _path(a["file_path"])
        lines = _text(p).splitlines()
        start = max(1, a.get("offset") or 1)
        count = a.get("limit") or 2000
        out = [f"{i:6d}\t{_cut(l, a['line_chars'])}" for i, l in
               enumerate(lines[start - 1:start - 1 + count], start)]
        if not lines:
            return "(empty file)", p
        if not out:
            return f"(the file has {len(lines)} lines; offset {start} is past its end)", p
        rest = len(lines) - (start - 1 + len(out))
        if rest > 0:
            out.append(f"[... {rest} more lines: read with offset={start + len(out)}]")
        return "\n".join(out), p
    if op == "write":
        p = _path(a["file_path"])
        _write(p, a["content"])
        return f"Wrote {len(a['content'].encode())} bytes to {_show(p)}", p
    if op in ("edit", "multi_edit"):
        p = _path(a["file_path"])
        if not _os.path.isfile(p):
            raise ValueError(_show(p) + " does not exist (use write to create it)")
        edits = a["edits"]
        text = _apply(_text(p), edits, p)
        _write(p, text)
        return f"Applied {len(edits)} edit{'s' if len(edits) > 1 else ''} to {_show(p)}", p
    if op == "glob":
        root = _path(a.get("path"))
        if not _os.path.isdir(root):
            raise ValueError(_show(root) + " is not a directory")
        pat = a["pattern"]
        if pat.startswith("/") or ".." in pat.split("/"):
            raise ValueError("the pattern is relative to path (give path for another directory)")
        found = [_show(str(f)) for f in sorted(_pl.Path(root).glob(pat)) if f.is_file()]
        more = len(found) - a["max"]
        text = "\n".join(found[:a["max"]]) or "(no files match)"
        return text + (f"\n[... {more} more files]" if more > 0 else ""), root
    if op == "grep":
        root = _path(a.get("path"))
        try:
            rx = _re.compile(a["pattern"])
        except _re.error as exc:
            raise ValueError(f"bad regular expression: {exc}")
        files = [root] if _os.path.isfile(root) else list(_walk(root))
        if not _os.path.exists(root):
            raise ValueError(_show(root) + " does not exist")
        inc = a.get("include")
        hits, more = [], 0
        for f in files:
            if inc and not _fn.fnmatch(_os.path.basename(f), inc):
                continue
            try:
                text = _text(f)
            except (OSError, ValueError):
                continue
            for n, line in enumerate(text.splitlines(), 1):
                if rx.search(line):
                    if len(hits) < a["max"]:
                        hits.append(f"{_show(f)}:{n}: {_cut(line, a['line_chars'])}")
                    else:
                        more += 1
        text = "\n".join(hits) or "(no matches)"
        return text + (f"\n[... {more} more matches]" if more else ""), root
    if op == "ls":
        root = _path(a.get("path"))
        if not _os.path.isdir(root):
            raise ValueError(_show(root) + " is not a directory")
        ign = a.get("ignore") or []
        out = []
        for name in sorted(_os.listdir(root)):
            if any(_fn.fnmatch(name, g) for g in ign):
                continue
            full = _os.path.join(root, name)
            out.append(name + "/" if _os.path.isdir(full) else name)
        more = len(out) - a["max"]
        text = "\n".join(out[:a["max"]]) or "(empty directory)"
        tail = f"\n[... {more} more entries]" if more > 0 else ""
        return _show(root) + ":\n" + text + tail, root
    if op == "remove":
        p = _path(a["file_path"])
        if _os.path.lexists(p):
            _os.remove(p)
        return "", p
    if op == "peek":
        p = _path(a["file_path"])
        if not _os.path.isfile(p):
            return None, p
        with open(p, "rb") as f:
            return f.read(lim).decode("utf-8", "replace"), p
    raise ValueError("unknown operation " + op)


def _oe_tool(op, a, lim):
    try:
        text, p = _op(op, a, lim)
        if isinstance(text, str) and len(text) > lim:
            text = text[:lim] + f"\n[... output cut at {lim} characters]"
        return {"ok": True, "text": text, "path": _show(p)}
    except (OSError, ValueError, UnicodeError) as exc:
        msg = str(exc)
        if isinstance(exc, OSError):
            msg = (exc.strerror or str(exc)) + (": " + _show(exc.filename) if exc.filename else "")
        return {"ok": False, "text": msg, "path": ""}
"""


class FileToolError(ValueError):
    """The tool could not do what was asked (missing file, ambiguous edit, bad pattern...)."""


def call(workspace: Workspace, op: str, arguments: dict[str, Any], limit: int) -> dict[str, Any]:
    """Run one file operation in the workspace: ``{"ok", "text", "path"}``."""
    args = {"max": MAX_MATCHES, "line_chars": LINE_CHARS, **arguments}
    payload = json.dumps([op, args, limit])
    code = f"{HELPER}\nprint(_js.dumps(_oe_tool(*_js.loads({payload!r}))))"
    stdout, stderr, exit_code = workspace.python(code)
    try:
        return json.loads(stdout.strip().splitlines()[-1])
    except (ValueError, IndexError):
        why = stderr.strip().splitlines()[-1] if stderr.strip() else f"exit status {exit_code}"
        raise FileToolError(f"the sandbox could not run {op}: {why}") from None


def run(workspace: Workspace, op: str, arguments: dict[str, Any], limit: int) -> str:
    """The text of a successful operation; a failure raises :class:`FileToolError`."""
    answer = call(workspace, op, arguments, limit)
    if not answer["ok"]:
        raise FileToolError(answer["text"])
    return answer["text"]


__all__ = ["HOME", "FileToolError", "call", "run"]
