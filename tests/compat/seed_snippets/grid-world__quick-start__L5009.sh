uv run server
