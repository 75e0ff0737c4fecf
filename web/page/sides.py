"""Who plays which side: the names of a two-player game's sides for the page's "you play"
choice (with the agent answering, it plays the other side)."""

from __future__ import annotations

from openenv.server.context import ServerContext

TWO_PLAYER_TAGS = {"two-player", "multi-agent", "multiplayer", "multi-player"}
GENERIC_SIDES = ("the first to move", "the second")


def side_choices(sides: tuple[str, str]) -> list[tuple[str, str]]:
    """The "you play" choices for sides named ``sides``: (label, value)."""
    return [("the side to move", "either"), (sides[0], "first"), (sides[1], "second")]


def two_player_sides(ctx: ServerContext) -> tuple[str, str] | None:
    """The names of a two-player game's sides for "you play" (the env's ``sides``, e.g.
    ``("X", "O")``, else first and second), or ``None`` for a game of one player.

    An env that plays several games (its reset options pick one) also names them per game with
    a class method ``sides_for(options) -> (first, second) | None``; the page relabels "you
    play" (or hides it, for a game of one player) on each Reset, and ``sides`` names the
    default game's."""
    declared = getattr(ctx.env_cls, "sides", None)
    per_game = getattr(ctx.env_cls, "sides_for", None)
    if callable(per_game):  # the default game's (reset options left as they are)
        try:
            declared = per_game({})
        except Exception:  # the env could not name them: its sides attribute, if any
            pass
        if not (isinstance(declared, list | tuple) and len(declared) == 2):
            return None
    if isinstance(declared, list | tuple) and len(declared) == 2:
        return str(declared[0])[:40], str(declared[1])[:40]
    if TWO_PLAYER_TAGS & {str(t).lower() for t in ctx.manifest.tags}:
        return GENERIC_SIDES
    return None
