"""The Julia side of a run: the files written into the sandbox, and reading what came back.

A run loads ``solution.jl`` (the agent's code) into ``Main``, then calls each task test (from
``tests.jl``) with ``Base.invokelatest``, catching errors one test at a time, then includes the
agent's own ``user_tests.jl``. The runner marks its report lines with a nonce it reads from
``nonce.txt`` and deletes before the agent's code is loaded, and keeps in a local variable: the
agent's code prints what it likes, but cannot forge a report line. (It runs in the same Julia
process as the tests, so code that redefines Base methods could still bend a test: the sandbox
bounds what it can do, not what it may claim through the language itself.)
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass, field

from julia_env.server.tasks import JuliaTask

MARK = "@@OE"

RUN_JL = r"""
function __oe_main()
    nonce = strip(read("nonce.txt", String))
    rm("nonce.txt")
    say(parts...) = (println(stdout, "@@OE ", nonce, " ", parts...); flush(stdout))
    oneline(err) = replace(sprint(showerror, err), '\n' => ' ')
    loaded = try
        Base.include(Main, "solution.jl")
        true
    catch err
        say("COMPILE_ERROR ", oneline(err))
        false
    end
    passed = 0
    failed = 0
    if loaded
        tests = Base.include(Main, "tests.jl")
        for (name, test) in tests
            status = try
                Base.invokelatest(test) === true ? "PASS" : "FAIL"
            catch err
                "ERROR: " * oneline(err)
            end
            if status == "PASS"
                passed += 1
            else
                failed += 1
            end
            say("TEST ", name, " ", status)
        end
        if isfile("user_tests.jl")
            try
                Base.include(Main, "user_tests.jl")
            catch err
                println(stderr, "your test_code: ", oneline(err))
            end
        end
    end
    say("DONE ", passed, " ", failed, " ", loaded)
end
__oe_main()
"""


def tests_jl(task: JuliaTask) -> str:
    """The task's tests as a Julia vector of (name, zero-argument function)."""
    rows = ",\n".join(f'    ("{name}", () -> ({expr}))' for name, expr in task.tests)
    return f"Tuple{{String,Function}}[\n{rows},\n]\n"


def run_files(task: JuliaTask, core_code: str, test_code: str) -> tuple[dict[str, str], str]:
    """The files of one run, and its nonce."""
    nonce = secrets.token_hex(16)
    files = {
        "run.jl": RUN_JL,
        "nonce.txt": nonce,
        "solution.jl": core_code,
        "tests.jl": tests_jl(task),
    }
    if test_code.strip():
        files["user_tests.jl"] = test_code
    return files, nonce


@dataclass
class RunReport:
    """What the runner reported (only lines carrying this run's nonce count)."""

    finished: bool = False
    compiled: bool | None = None
    passed: int = 0
    failed: int = 0
    results: list[str] = field(default_factory=list)
    compile_error: str = ""
    output: str = ""  # everything else the run printed


def parse_output(text: str, nonce: str, task: JuliaTask) -> RunReport:
    """Read a run's output; a run that never reported DONE counts every test as failed."""
    report, other = RunReport(), []
    prefix = f"{MARK} {nonce} "
    for line in text.splitlines():
        if not line.startswith(prefix):
            other.append(line)
            continue
        body = line[len(prefix) :]
        if body.startswith("COMPILE_ERROR "):
            report.compile_error = body.removeprefix("COMPILE_ERROR ")
        elif body.startswith("DONE "):
            _, passed, failed, loaded = body.split(" ")
            report.finished, report.compiled = True, loaded == "true"
            report.passed, report.failed = int(passed), int(failed)
        elif body.startswith("TEST "):
            report.results.append(body.removeprefix("TEST "))
    if not report.finished:
        report.passed, report.failed = 0, len(task.tests)
        report.compiled = False if report.compile_error else None
    report.output = "\n".join(other)
    return report
