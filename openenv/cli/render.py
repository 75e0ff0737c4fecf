"""``openenv render FILE -o OUT``: an episode file (the playground's JSONL export, or what
``client.record()`` wrote) as an MP4 or GIF video, with a progress bar on stderr."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from openenv.cli import ui
from openenv.cli.ui import CliError


def run(args: argparse.Namespace) -> int:
    """``openenv render FILE -o OUT``: write one episode of the file as a video."""
    from openenv.web.episode.files import EpisodeFileError, parse_episodes_jsonl
    from openenv.web.episode.video import VideoUnavailable, episode_pictures, episode_video

    out = Path(args.out)
    kind = out.suffix.lower().lstrip(".")
    if kind not in ("mp4", "gif"):
        raise CliError(f"--out must end in .mp4 or .gif, got {out.name!r}")
    if args.fps is not None and not 0 < args.fps <= 240:
        raise CliError(f"--fps must be in (0, 240], got {args.fps:g}")
    try:
        episodes = parse_episodes_jsonl(Path(args.file).read_bytes())
    except OSError as exc:
        raise CliError(f"cannot read {args.file}: {exc.strerror or exc}") from None
    except EpisodeFileError as exc:
        raise CliError(f"{args.file}: {exc}") from None
    number = args.episode or 1
    if not 1 <= number <= len(episodes):
        raise CliError(
            f"{args.file} holds {len(episodes)} episode(s); --episode {number} is not one"
        )
    frames, how = episode_pictures(episodes[number - 1])
    fps = args.fps if args.fps is not None else _env_fps(episodes[number - 1].env)
    if not frames:
        raise CliError(f"episode {number} of {args.file} has no steps to show")
    ui.info(f"Episode {number}: {len(frames)} pictures, {how}")

    def progress(done: int, total: int) -> None:
        filled = done * 30 // total
        sys.stderr.write(f"\r  [{'#' * filled}{'.' * (30 - filled)}] {done}/{total} frames")
        if done == total:
            sys.stderr.write("\n")
        sys.stderr.flush()

    try:
        data = episode_video(frames, kind, fps=fps, progress=progress)
    except VideoUnavailable as exc:
        raise CliError(str(exc)) from None
    out.write_bytes(data or b"")
    ui.ok(f"Wrote {out} ({len(frames)} frames at {fps:g} fps, {len(data or b'') // 1024} KiB)")
    return 0


def _env_fps(name: str | None) -> float:
    """The frame rate of the env a file names (its environment class's ``render_fps``), or the
    default when it names none, or one not installed here."""
    from openenv.core.errors import OpenEnvError
    from openenv.core.registry import find
    from openenv.web.episode.video import DEFAULT_FPS, env_fps

    if not name:
        return DEFAULT_FPS
    try:
        return env_fps(find(name).environment_class())
    except (OpenEnvError, ImportError):
        return DEFAULT_FPS
