"""The REPL's helpers, run inside the sandbox at the start of every interpreter.

Not imported by the server: :mod:`repl_env.server.repl` sends this file's source in the first
cell of a fresh sandbox (``openenv.sandbox``), which runs it in a namespace of its own (so the
user's names and these never mix) and calls ``__repl__.install(globals(), context)``. That puts,
in the user's namespace, the reference's helpers ``FINAL(value)``, ``FINAL_VAR(name)``,
``SHOW_VARS()``, the ``answer`` dict (``answer["ready"] = True`` submits ``answer["content"]``)
and ``context``; and ``builtins.__repl__``, which the server calls to run a cell like a REPL
(the value of a last expression is printed), to read the names defined and the answer, and to
run a task's hidden tests. Standard library only.
"""

import ast
import builtins
import json
import linecache
import os
import reprlib
import sys
import traceback

HELPERS_FILE = "<repl helpers>"
_HELPERS = ("FINAL", "FINAL_VAR", "SHOW_VARS")
_SHORT = reprlib.Repr()
_SHORT.maxstring = _SHORT.maxother = 200
_SHORT.maxlist = _SHORT.maxdict = _SHORT.maxtuple = _SHORT.maxset = 20


class _Final:
    """What ``FINAL(x)`` returns: shown as ``FINAL(x)`` when it is a cell's last expression."""

    def __init__(self, text):
        self.text = text

    def __repr__(self):
        return "FINAL(" + self.text + ")"


class _Repl:
    def __init__(self):
        self.ns = {}
        self.final = None
        self.cells = 0
        self.changed = []

    def install(self, namespace, context):
        """Put the helpers, ``answer`` and ``context`` (unless ``None``) in ``namespace``."""
        self.ns = namespace
        namespace.update(FINAL=FINAL, FINAL_VAR=FINAL_VAR, SHOW_VARS=SHOW_VARS)
        namespace["answer"] = {"content": "", "ready": False}
        if context is not None:
            namespace["context"] = context

    # -- cells --------------------------------------------------------------------------------

    def run(self, source):
        """Run ``source`` like a REPL cell; on an exception print its traceback, exit code 1."""
        self.cells += 1
        name = f"<cell {self.cells}>"
        linecache.cache[name] = (len(source), None, source.splitlines(True), name)
        before = {k: id(v) for k, v in self.ns.items()}
        try:
            tree = ast.parse(source, name, "exec")
            last = tree.body.pop() if tree.body and isinstance(tree.body[-1], ast.Expr) else None
            exec(compile(tree, name, "exec"), self.ns)
            if last is not None:
                value = eval(compile(ast.Expression(last.value), name, "eval"), self.ns)
                if value is not None:
                    print(repr(value))
        except Exception as exc:
            self._report(exc)
            raise SystemExit(1) from None
        finally:
            self.changed = [k for k, v in self.ns.items() if before.get(k) != id(v)]

    def _report(self, exc):
        tb = exc.__traceback__
        while tb is not None and tb.tb_frame.f_code.co_filename == HELPERS_FILE:
            tb = tb.tb_next  # our own frames, not the user's
        if isinstance(exc, SyntaxError):
            tb = None
        traceback.print_exception(type(exc), exc, tb)

    # -- what the server reads ----------------------------------------------------------------

    def names(self):
        return sorted(k for k in self.ns if not k.startswith("_") and k not in _HELPERS)

    def report(self, var=None):
        """One JSON line on fd 1: the names, the changed variables, the answer if any."""
        final = self.final
        if final is None and var is not None and var in self.ns:
            final = str(self.ns[var])
        if final is None:
            answer = self.ns.get("answer")
            if isinstance(answer, dict) and answer.get("ready"):
                final = str(answer.get("content", ""))
        changed = {}
        for k in self.changed:
            if k in self.ns and not k.startswith("_") and k not in _HELPERS:
                try:
                    changed[k] = _SHORT.repr(self.ns[k])
                except Exception as exc:
                    changed[k] = f"<repr failed: {type(exc).__name__}>"
        data = {"names": self.names(), "changed": changed, "final": final}
        os.write(1, (json.dumps(data) + "\n").encode("utf-8", "backslashreplace"))

    def check(self, function, cases):
        """A task's hidden tests: call ``function`` on each case (``cases``: a JSON list of
        argument lists); one JSON line of results on fd 1."""
        cases = json.loads(cases)
        fn = self.ns.get(function)
        results: dict = {"error": f"no function named {function} is defined"}
        if callable(fn):
            results = {"values": [self._call(fn, args) for args in cases]}
        os.write(1, (json.dumps(results, default=repr) + "\n").encode("utf-8", "backslashreplace"))

    def _call(self, fn, args):
        try:
            value = fn(*args)
        except Exception as exc:
            return {"raised": type(exc).__name__ + ": " + str(exc)[:200]}
        if isinstance(value, (bool, int, float, str)) or value is None:
            return {"value": value}
        return {"value": repr(value)[:200], "type": type(value).__name__}


def FINAL(value):
    """Submit ``value`` as the final answer (its ``str``); ends the episode."""
    _REPL.final = str(value)
    return _Final(_REPL.final)


def FINAL_VAR(name):
    """Submit the variable called ``name`` (a string) as the final answer."""
    key = str(name).strip().strip("\"'")
    if key not in _REPL.ns:
        raise NameError(f"FINAL_VAR: no variable named {key!r}")
    return FINAL(_REPL.ns[key])


def SHOW_VARS():
    """The names defined in the interpreter."""
    return _REPL.names()


_REPL = _Repl()
setattr(builtins, "__repl__", _REPL)  # noqa: B010 (a name the cells reach from anywhere)
sys.setrecursionlimit(2000)
