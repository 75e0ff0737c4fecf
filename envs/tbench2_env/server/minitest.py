"""A stand-in for pytest where a task's image has none (offline, nothing can be installed).

``python3 minitest.py test_outputs.py``: imports the file, calls each ``test_*`` function that
takes no argument (``tmp_path`` gets a fresh directory), and prints pytest's ``-rA`` summary
lines (``PASSED file::name`` / ``FAILED file::name - reason``) and a count; exits 1 when a test
failed. Standard library only: it is copied next to the tests and run by the task's Python.
"""

import importlib.util
import inspect
import sys
import tempfile
import traceback
from pathlib import Path


def main(path: str) -> int:
    name = Path(path).name
    spec = importlib.util.spec_from_file_location("test_outputs", path)
    module = importlib.util.module_from_spec(spec)
    try:
        spec.loader.exec_module(module)
    except Exception:
        traceback.print_exc()
        print(f"ERROR {name} - the test file does not import")
        return 1
    tests = [(n, f) for n, f in vars(module).items() if n.startswith("test") and callable(f)]
    failed = 0
    lines = []
    for test_name, func in tests:
        kwargs = {}
        for param in inspect.signature(func).parameters:
            if param == "tmp_path":
                kwargs[param] = Path(tempfile.mkdtemp(prefix="minitest-"))
        try:
            func(**kwargs)
            lines.append(f"PASSED {name}::{test_name}")
        except Exception as exc:
            failed += 1
            traceback.print_exc()
            reason = f"{type(exc).__name__}: {exc}".splitlines()[0][:200]
            lines.append(f"FAILED {name}::{test_name} - {reason}")
    print("=" * 20 + " short test summary info " + "=" * 20)
    print("\n".join(lines))
    print(f"{len(tests) - failed} passed, {failed} failed")
    return 1 if failed or not tests else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
