#!/bin/bash
# Runs the task's tests from the working directory. pytest when the image has it; otherwise
# tbench2_env's small stand-in runner (copied next to the tests), which prints the same
# PASSED/FAILED summary lines. Offline: nothing is installed here.
cd /app || exit 1
if python3 -c "import pytest" 2>/dev/null; then
  python3 -m pytest "$TEST_DIR/test_outputs.py" -rA -p no:cacheprovider -qq --tb=short
else
  python3 "$TEST_DIR/minitest.py" "$TEST_DIR/test_outputs.py"
fi
