"""Episodes as files: JSONL and GIF export (``export``) and reading an exported JSONL back
(``files``)."""
