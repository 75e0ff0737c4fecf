"""The repositories git_env ships, as data: each is a list of commits (message, files).

:mod:`git_env.server.store` builds them into bare repositories when the server starts, with
fixed authors and dates, so every server has the same commits (the same ids). A file's text
``None`` deletes it in that commit.
"""

from __future__ import annotations

from dataclasses import dataclass

RUN_TESTS = '''"""Run the tests in tests/; print what failed, no timings. Exit 0 when all pass."""

import sys
import unittest

suite = unittest.defaultTestLoader.discover("tests", top_level_dir=".")
result = unittest.TestResult()
suite.run(result)
for test, trace in result.failures + result.errors:
    print(f"FAIL {test.id()}: {trace.strip().splitlines()[-1]}")
failed = len(result.failures) + len(result.errors)
print(f"{result.testsRun} tests, {failed} failed")
sys.exit(0 if result.wasSuccessful() else 1)
'''
GITIGNORE = "__pycache__/\n*.pyc\n"


@dataclass(frozen=True)
class Commit:
    message: str
    files: dict[str, str | None]


@dataclass(frozen=True)
class RepoSpec:
    name: str
    description: str
    commits: tuple[Commit, ...]


CALC_V1 = '''"""A small calculator."""


def add(a, b):
    return a + b


def subtract(a, b):
    return a - b


def multiply(a, b):
    return a * b
'''

CALC_V2 = (
    CALC_V1
    + '''

def divide(a, b):
    if b == 0:
        raise ZeroDivisionError("cannot divide by zero")
    return a / b


def average(values):
    """The arithmetic mean of a non-empty list of numbers."""
    return sum(values) // len(values)
'''
)

CALC_TESTS_V1 = """import unittest

from calc import add, multiply, subtract


class TestBasics(unittest.TestCase):
    def test_add(self):
        self.assertEqual(add(2, 3), 5)

    def test_subtract(self):
        self.assertEqual(subtract(2, 3), -1)

    def test_multiply(self):
        self.assertEqual(multiply(4, 3), 12)
"""

CALC_TESTS_V2 = (
    CALC_TESTS_V1.replace(
        "from calc import add, multiply, subtract",
        "from calc import add, average, divide, multiply, subtract",
    )
    + """

class TestMore(unittest.TestCase):
    def test_divide(self):
        self.assertEqual(divide(7, 2), 3.5)

    def test_average(self):
        self.assertEqual(average([1, 2]), 1.5)
"""
)

GREETER_V1 = '''"""Greetings."""


def greet(name):
    return f"Hello, {name}!"
'''
GREETER_V2 = (
    GREETER_V1
    + """

def farewell(name):
    return f"Goodbye, {name}!"
"""
)
GREETER_V3 = GREETER_V2.replace('return f"Hello, {name}!"', 'return f"Hello, {name}!".upper()')
GREETER_TESTS_V1 = """import unittest

from greeter import greet


class TestGreet(unittest.TestCase):
    def test_greet(self):
        self.assertEqual(greet("Ada"), "Hello, Ada!")
"""
GREETER_TESTS_V2 = (
    GREETER_TESTS_V1.replace("from greeter import greet", "from greeter import farewell, greet")
    + """
    def test_farewell(self):
        self.assertEqual(farewell("Ada"), "Goodbye, Ada!")
"""
)

REPOS: dict[str, RepoSpec] = {
    spec.name: spec
    for spec in (
        RepoSpec(
            "calculator",
            "A tiny Python calculator with unit tests (one of them fails)",
            (
                Commit(
                    "Add calculator with tests",
                    {
                        "README.md": "# calculator\n\nRun the tests: `python3 run_tests.py`\n",
                        ".gitignore": GITIGNORE,
                        "calc.py": CALC_V1,
                        "run_tests.py": RUN_TESTS,
                        "tests/__init__.py": "",
                        "tests/test_calc.py": CALC_TESTS_V1,
                    },
                ),
                Commit(
                    "Add divide and average",
                    {"calc.py": CALC_V2, "tests/test_calc.py": CALC_TESTS_V2},
                ),
            ),
        ),
        RepoSpec(
            "greeter",
            "Greetings and farewells; the last commit broke a test",
            (
                Commit(
                    "Add greeter",
                    {
                        "README.md": "# greeter\n\nRun the tests: `python3 run_tests.py`\n",
                        ".gitignore": GITIGNORE,
                        "greeter.py": GREETER_V1,
                        "run_tests.py": RUN_TESTS,
                        "tests/__init__.py": "",
                        "tests/test_greeter.py": GREETER_TESTS_V1,
                    },
                ),
                Commit(
                    "Add farewell",
                    {"greeter.py": GREETER_V2, "tests/test_greeter.py": GREETER_TESTS_V2},
                ),
                Commit("Shout greetings", {"greeter.py": GREETER_V3}),
            ),
        ),
        RepoSpec(
            "notes",
            "A notebook of Markdown files",
            (
                Commit(
                    "Start notes",
                    {
                        "README.md": "# notes\n\nOne Markdown file per topic.\n",
                        "notes/ideas.md": "# Ideas\n\n- a terminal for agents\n",
                    },
                ),
                Commit(
                    "Add meeting notes",
                    {"notes/meeting.md": "# Meeting\n\n- decided: ship git_env\n"},
                ),
            ),
        ),
    )
}
