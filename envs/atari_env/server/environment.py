"""Atari 2600 games through the Arcade Learning Environment (``ale-py``, ROMs included).

Configuration: each setting is a reset option, and when the option is omitted it comes from an
environment variable, then from the default. Options apply to the episode they start.

==========================  ===========================  ===========================
reset option                environment variable         default
==========================  ===========================  ===========================
``game_name``               ``ATARI_GAME``               ``pong``
``obs_type``                ``ATARI_OBS_TYPE``           ``rgb`` (``grayscale``, ``ram``)
``full_action_space``       ``ATARI_FULL_ACTION_SPACE``  ``false`` (18 actions if true)
``mode``                    ``ATARI_MODE``               the game's default
``difficulty``              ``ATARI_DIFFICULTY``         the game's default
``repeat_action_probability`` ``ATARI_REPEAT_ACTION_PROB`` ``0.0`` (sticky actions)
``frameskip``               ``ATARI_FRAMESKIP``          ``4`` (an integer from 1 to 32)
``max_episode_steps``       ``ATARI_MAX_EPISODE_STEPS``  none: game over only (else >= 1)
``frame_encoding``          ``OPENENV_FRAME_ENCODING``   ``rows`` (zlib, png, raw, list)
==========================  ===========================  ===========================

Actions: ``action_id`` indexes the action set (the game's minimal set, or all 18 buttons); the
button names are in ``observation.action_meanings``. An ``action_id`` outside the set is refused
and the game is unchanged. Each step holds the button for ``frameskip`` frames.

Observation: ``screen`` (RGB H×W×3, grayscale H×W or the 128-byte RAM, encoded as in
:mod:`openenv.core.frames`), ``screen_shape``, ``legal_actions``, ``action_meanings``,
``lives``, ``episode_frame_number``, ``frame_number``.

Reward: the game score gained during the step. The episode ends at game over
(``metadata["terminated"]``) or after ``max_episode_steps`` steps (``metadata["truncated"]``).

Seeding: ALE's ``random_seed`` is drawn from ``self.rng``, so ``reset(seed=s)`` replays the
same episode even with sticky actions.

Games: every ROM ``ale_py.roms.get_all_rom_ids()`` lists except the four ALE ships without an
implementation (``combat``, ``joust``, ``maze_craze``, ``warlords``: ALE issue #537), which are
refused with that reason (loading one would end the process).

(Over 400 lines: the reset options, the emulator and its frames are the environment; each
option's checks live next to what they protect.)
"""

from __future__ import annotations

import dataclasses
import functools
import os
import uuid
from dataclasses import dataclass
from typing import Annotated, Any, Literal

import numpy as np
from ale_py import ALEInterface, LoggerMode, roms
from pydantic import Field

from atari_env.models import AtariAction, AtariObservation, AtariState
from openenv.core import ActionChoice, Environment, Frame, InvalidAction
from openenv.core.frames import Encoding, FrameData, PaletteFrames, encode_frame, resolve_encoding

ALEInterface.setLoggerMode(LoggerMode.Error)

OBS_TYPES = ("rgb", "grayscale", "ram")
# What a visitor may make one step or one episode cost: a step emulates frameskip frames.
MAX_FRAMESKIP = 32
MAX_EPISODE_STEPS = 1_000_000
ENV_VARS = {
    "game_name": "ATARI_GAME",
    "obs_type": "ATARI_OBS_TYPE",
    "full_action_space": "ATARI_FULL_ACTION_SPACE",
    "mode": "ATARI_MODE",
    "difficulty": "ATARI_DIFFICULTY",
    "repeat_action_probability": "ATARI_REPEAT_ACTION_PROB",
    "frameskip": "ATARI_FRAMESKIP",
    "max_episode_steps": "ATARI_MAX_EPISODE_STEPS",
}
# Keyboard keys (KeyboardEvent.key): arrows (or the playground's WASD aliases) move, space
# fires, Q E Z C are the diagonals around WASD, and the U I O / J L / M , . cluster around K
# moves while firing.
KEYS = {
    "NOOP": "n",
    "FIRE": " ",
    "UP": "ArrowUp",
    "RIGHT": "ArrowRight",
    "LEFT": "ArrowLeft",
    "DOWN": "ArrowDown",
    "UPRIGHT": "e",
    "UPLEFT": "q",
    "DOWNRIGHT": "c",
    "DOWNLEFT": "z",
    "UPFIRE": "i",
    "RIGHTFIRE": "l",
    "LEFTFIRE": "j",
    "DOWNFIRE": ",",
    "UPRIGHTFIRE": "o",
    "UPLEFTFIRE": "u",
    "DOWNRIGHTFIRE": ".",
    "DOWNLEFTFIRE": "m",
}

# Games whose paddle moves vertically: the joystick's RIGHT/LEFT move it up/down on screen
# (minimal action set only; the full set has its own UP and DOWN).
GAME_KEYS = {
    "pong": {"RIGHT": ("ArrowUp", "paddle up"), "LEFT": ("ArrowDown", "paddle down")},
}


@dataclass(frozen=True)
class AtariConfig:
    """Everything that selects the emulator setup of an episode."""

    game_name: str = "pong"
    obs_type: str = "rgb"
    full_action_space: bool = False
    mode: int | None = None
    difficulty: int | None = None
    repeat_action_probability: float = 0.0
    frameskip: int = 4
    max_episode_steps: int | None = None


EMULATED_FPS = 60.0  # the Atari 2600 draws 60 frames a second


class AtariEnvironment(Environment[AtariAction, AtariObservation, AtariState]):
    """One ALE emulator per session; see the module docstring for options and rules."""

    how_to_play = (
        "Press ▶ Real time (or hold a key) and play: in Pong hold ↑ / ↓ to move your "
        "paddle (right, green) and return the ball past the computer's."
    )

    render_fps = 15.0  # 60 frames/s emulated, 4 per step by default (60 / frameskip)

    def __init__(self) -> None:
        self._ale: ALEInterface | None = None
        self._start_state: Any = None  # the emulator at the start of an episode
        self._start_screens: dict[str, np.ndarray] = {}  # its pictures (not in the state)
        self._stale_screen = False  # the frame buffer still shows the previous episode
        self._palettes: dict[str, PaletteFrames] = {}  # the emulator's colours, as learnt
        self._config: AtariConfig | None = None
        self._actions: list[Any] = []
        self._meaning_names: list[str] = []
        self._encoding = resolve_encoding()
        self._state = AtariState()

    def reset(
        self,
        seed: int | None = None,
        episode_id: str | None = None,
        game_name: GameName | None = None,
        obs_type: Literal["rgb", "grayscale", "ram"] | None = None,
        full_action_space: bool | None = None,
        mode: Annotated[int, Field(ge=0)] | None = None,
        difficulty: Annotated[int, Field(ge=0)] | None = None,
        repeat_action_probability: Annotated[float, Field(ge=0.0, le=1.0)] | None = None,
        frameskip: Annotated[int, Field(ge=1, le=MAX_FRAMESKIP, description=HINTS["frameskip"])]
        | None = None,
        max_episode_steps: Annotated[
            int, Field(ge=1, le=MAX_EPISODE_STEPS, description=HINTS["max_episode_steps"])
        ]
        | None = None,
        frame_encoding: Encoding | None = None,
    ) -> AtariObservation:
        options = {k: v for k, v in locals().items() if k in ENV_VARS}
        config = resolve_config(options)
        self._encoding = resolve_encoding(frame_encoding)
        self._start(config)
        self._state = AtariState(
            episode_id=episode_id or str(uuid.uuid4()),
            frame_encoding=self._encoding,
            **dataclasses.asdict(config),
        )
        return self._observe(0.0)

    def step(self, action: AtariAction) -> AtariObservation:
        self._check_action(action)
        ale, config = self._ale, self._config
        button = self._actions[action.action_id]
        reward = 0.0
        for _ in range(config.frameskip):
            reward += ale.act(button)
            if ale.game_over():
                break
        self._stale_screen = False
        self._state.step_count += 1
        return self._observe(reward)

    @property
    def state(self) -> AtariState:
        return self._state

    def render(self) -> Frame | None:
        return Frame(self._screen("rgb")) if self._ale is not None else None

    def legal_actions(self) -> list[ActionChoice]:
        config = self._config
        minimal = config is not None and not config.full_action_space
        special = GAME_KEYS.get(config.game_name, {}) if minimal else {}
        choices = []
        for i, name in enumerate(self._meanings()):
            key, description = special.get(name, (KEYS.get(name), ""))
            choices.append(
                ActionChoice(
                    name, {"action_id": i}, key=key, description=description, idle=name == "NOOP"
                )
            )
        return choices

    def close(self) -> None:
        self._ale = None

    # -- internals -------------------------------------------------------------------------

    def _start(self, config: AtariConfig) -> None:
        # Loading a ROM takes ~0.2 s and reset_game ~9 ms (it plays the game's start-up
        # frames). Without sticky actions ALE draws no random numbers, so every episode starts
        # from the same state: it is saved once and restored (~0.1 ms) by later resets.
        self.render_fps = EMULATED_FPS / config.frameskip  # the game's own speed, in steps
        if self._ale is None or config != self._config or config.repeat_action_probability > 0:
            ale = load_emulator(config, self.rng.randrange(2**31))
            full = config.full_action_space
            self._actions = list(ale.getLegalActionSet() if full else ale.getMinimalActionSet())
            self._meaning_names = [a.name for a in self._actions]
            ale.reset_game()
            self._ale, self._start_state = ale, ale.cloneState(include_rng=True)
            # A restored state does not redraw the screen until the next frame: keep the
            # start pictures for the reset observation (and render()) of later episodes.
            self._start_screens = {"rgb": ale.getScreenRGB(), "grayscale": ale.getScreenGrayscale()}
            self._palettes = {"rgb": PaletteFrames(3), "grayscale": PaletteFrames(None)}
            self._stale_screen = False
        else:
            self._ale.restoreState(self._start_state)
            self._stale_screen = True
        self._config = config

    def _check_action(self, action: AtariAction) -> None:
        config = self._config
        for name in ("game_name", "obs_type", "full_action_space"):
            sent, running = getattr(action, name), getattr(config, name)
            if sent is not None and sent != running:
                raise InvalidAction(
                    f"{name}={sent!r} does not match this episode ({name}={running!r}); "
                    f"pass {name} to reset() to change it, or leave it out of the action"
                )
        if action.action_id >= len(self._actions):
            choices = ", ".join(f"{i}={m}" for i, m in enumerate(self._meanings()))
            raise InvalidAction(
                f"action_id {action.action_id} is not in {config.game_name}'s action set "
                f"({choices})"
            )

    def _meanings(self) -> list[str]:
        return list(self._meaning_names)

    def _screen(self, obs_type: str | None = None) -> np.ndarray:
        obs_type = obs_type or self._config.obs_type
        if self._stale_screen and obs_type in self._start_screens:
            return self._start_screens[obs_type].copy()
        if obs_type == "rgb":
            return self._ale.getScreenRGB()
        if obs_type == "grayscale":
            return self._ale.getScreenGrayscale()
        return self._ale.getRAM()

    def _encoded_screen(self) -> tuple[FrameData, list[int]]:
        """The observation's screen on the wire, and its shape.

        RGB and grayscale screens are encoded from ALE's palette indices (``getScreen``, a
        few microseconds) rather than from the image ``getScreenRGB`` builds (~50 us): see
        :class:`~openenv.core.frames.PaletteFrames`. The image is the same.
        """
        obs_type = self._config.obs_type
        if obs_type not in self._palettes or self._stale_screen:
            screen = self._screen()
            return encode_frame(screen, self._encoding), list(screen.shape)
        ale = self._ale
        image = ale.getScreenRGB if obs_type == "rgb" else ale.getScreenGrayscale
        indices = ale.getScreen()
        frame = self._palettes[obs_type].encode(indices, image, self._encoding)
        return frame, [*indices.shape, 3] if obs_type == "rgb" else list(indices.shape)

    def _observe(self, reward: float) -> AtariObservation:
        ale, config = self._ale, self._config
        screen, screen_shape = self._encoded_screen()
        terminated = bool(ale.game_over())
        limit = config.max_episode_steps
        truncated = not terminated and limit is not None and self._state.step_count >= limit
        # Every value is built here with the right type: skip pydantic's validation (~10 us).
        return AtariObservation.model_construct(
            screen=screen,
            screen_shape=screen_shape,
            legal_actions=list(range(len(self._actions))),
            action_meanings=self._meanings(),
            lives=int(ale.lives()),
            episode_frame_number=int(ale.getEpisodeFrameNumber()),
            frame_number=int(ale.getFrameNumber()),
            reward=float(reward),
            done=terminated or truncated,
            metadata={"terminated": terminated, "truncated": truncated},
        )


def load_emulator(config: AtariConfig, random_seed: int) -> ALEInterface:
    """A fresh emulator with ``config``'s ROM, sticky-action setting, mode and difficulty."""
    ale = ALEInterface()
    ale.setInt("random_seed", random_seed)
    ale.setFloat("repeat_action_probability", config.repeat_action_probability)
    ale.loadROM(rom_path(config.game_name))
    if config.mode is not None:
        _require_in(config.mode, ale.getAvailableModes(), "mode", config.game_name)
        ale.setMode(config.mode)
    if config.difficulty is not None:
        _require_in(
            config.difficulty, ale.getAvailableDifficulties(), "difficulty", config.game_name
        )
        ale.setDifficulty(config.difficulty)
    return ale


def rom_path(game_name: str) -> str:
    """The bundled ROM of ``game_name`` (``pong``, ``space_invaders``, ``ms_pacman``, ...).

    ``ale-py`` ships a few ROMs its emulator has no implementation for (ALE issue #537);
    loading one ends the process, so they are refused here with the reason.
    """
    games = playable_games()
    if game_name in roms.get_all_rom_ids() and game_name not in games:
        raise InvalidAction(
            f"{game_name!r} ships with ale-py but ALE cannot play it: the emulator has no "
            "implementation of this game (ALE issue #537: combat, joust, maze_craze, warlords); "
            "choose another game"
        )
    if game_name not in games:
        close = [g for g in games if g.startswith(game_name[:3])] or list(games[:8])
        raise InvalidAction(
            f"unknown Atari game {game_name!r}; try one of {', '.join(close)} "
            f"({len(games)} games: ale_py.roms.get_all_rom_ids(), but for the ones ALE cannot "
            "play)"
        )
    return str(roms.get_rom_path(game_name))


@functools.cache
def playable_games() -> tuple[str, ...]:
    """The bundled ROMs ALE can load (``isSupportedROM``), in ``get_all_rom_ids()`` order."""
    ale = ALEInterface()
    return tuple(g for g in roms.get_all_rom_ids() if ale.isSupportedROM(roms.get_rom_path(g)))


# The reset option's type: any string (checked by rom_path), the playable games as examples,
# which the playground offers in a drop-down.
GameName = Annotated[
    str,
    Field(
        description="The ROM to play; default $ATARI_GAME, else pong",
        examples=sorted(playable_games()),
    ),
]


def resolve_config(options: dict[str, Any]) -> AtariConfig:
    """Reset options first, then ``ATARI_*`` environment variables, then the defaults."""
    values: dict[str, Any] = {}
    for name, var in ENV_VARS.items():
        value = options.get(name)
        source = f"reset option {name}"
        if value is None and os.environ.get(var, "").strip():
            value, source = os.environ[var].strip(), f"${var}"
        if value is not None:
            values[name] = _parse(name, value, source)
    return AtariConfig(**values)


def _parse(name: str, value: Any, source: str) -> Any:
    try:
        parsed = _PARSERS[name](value)
    except (TypeError, ValueError) as exc:
        hint = f" ({HINTS[name]})" if name in HINTS else ""
        raise InvalidAction(f"{source}={value!r} is invalid: {exc}{hint}") from None
    return parsed


def _game(value: Any) -> str:
    return str(value).strip().lower().replace("-", "_").replace(" ", "_")


def _obs_type(value: Any) -> str:
    text = str(value).strip().lower()
    if text not in OBS_TYPES:
        raise ValueError(f"use one of {', '.join(OBS_TYPES)}")
    return text


def _flag(value: Any) -> bool:
    if isinstance(value, bool):
        return value
    text = str(value).strip().lower()
    if text in ("1", "true", "yes", "on"):
        return True
    if text in ("0", "false", "no", "off"):
        return False
    raise ValueError("use true or false")


def _int_at_least(low: int, high: int | None = None):
    def parse(value: Any) -> int:
        if isinstance(value, bool) or (isinstance(value, float) and not value.is_integer()):
            raise ValueError("use an integer")
        number = int(value)
        if number < low or (high is not None and number > high):
            bound = f"from {low} to {high}" if high is not None else f">= {low}"
            raise ValueError(f"use an integer {bound}")
        return number

    return parse


def _probability(value: Any) -> float:
    number = float(value)
    if not 0.0 <= number <= 1.0:
        raise ValueError("use a number between 0.0 and 1.0")
    return number


HINTS = {  # said after a refusal (and shown by the playground's form)
    "frameskip": "frames each action is held; the default is 4: leave the option out",
    "max_episode_steps": "leave it out to play until game over",
}

_PARSERS = {
    "game_name": _game,
    "obs_type": _obs_type,
    "full_action_space": _flag,
    "mode": _int_at_least(0),
    "difficulty": _int_at_least(0),
    "repeat_action_probability": _probability,
    "frameskip": _int_at_least(1, MAX_FRAMESKIP),
    "max_episode_steps": _int_at_least(1, MAX_EPISODE_STEPS),
}


def _require_in(value: int, available: Any, what: str, game: str) -> None:
    choices = [int(v) for v in available]
    if value not in choices:
        raise InvalidAction(f"{what} {value} does not exist in {game}; available: {choices}")
