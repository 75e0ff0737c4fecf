import subprocess
from pathlib import Path

SCRIPT = Path("/app/wordcount.sh")


def count(path):
    done = subprocess.run([str(SCRIPT), str(path)], capture_output=True, text=True, timeout=10)
    assert done.returncode == 0, done.stderr
    return int(done.stdout.strip())


def test_counts_the_words_of_notes():
    assert count("/app/notes.txt") == 9


def test_counts_the_words_of_another_file():
    other = Path("/tmp/tb2-wordcount-check.txt")
    other.write_text("one two\nthree\n\nfour five six seven\n")
    assert count(other) == 7
