from pathlib import Path

HELLO = Path("/app/hello.txt")


def test_hello_file_exists():
    assert HELLO.exists(), f"{HELLO} does not exist"


def test_hello_file_content():
    assert HELLO.read_text().strip() == "Hello, world!", HELLO.read_text()
