from pathlib import Path

ERRORS = Path("/app/errors.txt")


def lines():
    return [line.strip() for line in ERRORS.read_text().splitlines() if line.strip()]


def test_errors_file_exists():
    assert ERRORS.exists(), f"{ERRORS} does not exist"


def test_counts_are_the_error_levels_only():
    # billing.log mentions the word ERROR in a WARN line: it logged no ERROR line
    assert "billing" not in ERRORS.read_text()


def test_lines_are_counted_and_sorted():
    assert lines() == ["api 3", "worker 3"]
