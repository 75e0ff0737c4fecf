"""``python -m openenv.core.harness.engine [--script steps.json] [--port 8001]``."""

from __future__ import annotations

import argparse
from pathlib import Path

import uvicorn

from openenv.core.harness.engine import Engine, ScriptedPolicy, create_engine_app


def main(argv: list[str] | None = None) -> None:
    """Serve the test engine until interrupted."""
    parser = argparse.ArgumentParser(prog="python -m openenv.core.harness.engine")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8001)
    parser.add_argument("--script", type=Path, help="scripted test policy (JSON list of steps)")
    parser.add_argument("--logprobs-mode", choices=["processed", "raw"], default="processed")
    args = parser.parse_args(argv)
    script = ScriptedPolicy.load(args.script) if args.script else None
    engine = Engine(script=script, logprobs_mode=args.logprobs_mode)
    uvicorn.run(create_engine_app(engine), host=args.host, port=args.port, log_level="warning")


if __name__ == "__main__":
    main()
