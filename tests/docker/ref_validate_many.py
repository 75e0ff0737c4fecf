"""Run the reference's ``openenv validate PACKAGE --json`` on many packages in one process.

Run by the reference virtualenv's Python (tests/compat/refvenv.py), from the project root:

    python tests/docker/ref_validate_many.py JOBS envs/a_env envs/b_env ...

The reference CLI imports Gradio, OpenAI's types and MCP before it does anything (about 7 s of
CPU an invocation on a 2-core runner); one process pays that once for every package. Each
package is validated as its ``validate`` command does (the default level, semantic; the default
policy; the image built), ``JOBS`` at a time, and printed as one JSON line when it is done:
``{"package", "report" (the JSON the command prints), "exit_code" (the command's: 1 on a FAIL
verdict, 3 on an internal error), "seconds"}``.
"""

from __future__ import annotations

import json
import sys
import threading
import time
import traceback
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from openenv.validation import Level, Verdict, run_validation, write_report

_print = threading.Lock()


def validate(package: str) -> None:
    started = time.monotonic()
    try:
        report = run_validation(Path(package), max_level=Level.SEMANTIC, skip_build=False)
        text = write_report(report, None)
        code = 1 if report.verdict is Verdict.FAIL else 0
    except Exception:  # the command's "Internal error" (exit 3), with the traceback kept
        text, code = json.dumps({"verdict": "no report", "results": []}), 3
        text = json.dumps({**json.loads(text), "stderr": traceback.format_exc()[-2000:]})
    line = {
        "package": Path(package).name,
        "report": text,
        "exit_code": code,
        "seconds": round(time.monotonic() - started, 1),
    }
    with _print:
        print(json.dumps(line), flush=True)


def main(argv: list[str]) -> None:
    jobs, packages = int(argv[0]), argv[1:]
    with ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
        list(pool.map(validate, packages))


if __name__ == "__main__":
    main(sys.argv[1:])
