"""TextArena over the wire: scripted wins, a built-in opponent, the game's own refusals,
seeded replays, and games whose data is missing refused at reset."""

from __future__ import annotations

import json

import pytest
from textarena_env import TextArenaAction, TextArenaEnv
from textarena_env.server import offline
from textarena_env.server.environment import TextArenaEnvironment
from textarena_env.server.games import GAME_IDS, GAMES, unwrapped
from websockets.sync.client import connect

from openenv.core import Board, ClientError, InvalidAction, Text
from openenv.testing import check_task_source
from tests.conftest import env_fixtures

url, env = env_fixtures("textarena_env.server.app:app", TextArenaEnv)
HANOI_3 = ["[A C]", "[A B]", "[C B]", "[A C]", "[B A]", "[B C]", "[A C]"]


def say(env, message: str):
    return env.step(TextArenaAction(message=message))


def secret_word(seed: int) -> str:
    """The hidden word of a seeded Wordle, from a game played in this process."""
    local = TextArenaEnvironment()
    local.reset(seed=seed, env_id="Wordle-v0")
    return unwrapped(local._game).state.game_state["secret_word"]


def test_a_scripted_wordle_is_won_and_the_text_grows_at_the_end(env):
    answer = secret_word(11)
    first = env.reset(seed=11, env_id="Wordle-v0").observation
    text = first.messages[0].content
    assert "You are Playing Wordle" in text and first.prompt in text
    assert first.messages[0].category == "MESSAGE" and first.messages[0].sender_id == -1
    assert first.current_player_id == 0 and first.legal_players == [0]
    guess = "crane" if answer != "crane" else "slate"
    miss = say(env, guess)  # brackets are added when the message has none, as TextArena does
    assert miss.reward == 0.0 and not miss.done
    grown = miss.observation.messages[0].content
    assert grown.startswith(text) and "Feedback" in grown[len(text) :]
    win = say(env, f"[{answer}]")
    assert win.done and win.reward == pytest.approx(1.0)
    assert "Congratulations" in win.observation.messages[0].content
    assert env.state().raw_state["done"] is True


def test_the_hidden_word_is_not_in_the_state(env):
    env.reset(seed=11, env_id="Wordle-v0")
    state = env.state()
    assert state.env_id == "Wordle-v0" and "secret_word" not in state.raw_state["game_state"]
    assert secret_word(11) not in json.dumps(state.model_dump())


def test_tower_of_hanoi_is_solved_in_seven_moves(env):
    env.reset(seed=0, env_id="TowerOfHanoi-v0")
    results = [say(env, move) for move in HANOI_3]
    assert [r.done for r in results] == [False] * 6 + [True]
    assert results[-1].reward == pytest.approx(1.0)
    assert env.state().raw_state["game_state"]["towers"]["C"] == [3, 2, 1]


def test_a_move_the_game_refuses_gets_its_own_response_and_the_game_goes_on(env):
    env.reset(seed=0, env_id="TowerOfHanoi-v0")
    refused = say(env, "[B C]")  # peg B is empty
    assert not refused.done and refused.reward == 0.0
    assert "You attempted an invalid move" in refused.observation.messages[0].content
    assert env.state().raw_state["game_state"]["towers"]["A"] == [3, 2, 1]
    moved = say(env, "[A C]")
    assert not moved.done and env.state().raw_state["game_state"]["towers"]["C"] == [1]


def test_two_refused_moves_in_a_row_end_the_game_as_textarena_rules(env):
    env.reset(seed=0, env_id="Wordle-v0")
    assert not say(env, "[zz]").done
    ended = say(env, "[qq]")
    assert ended.done and "Invalid Move" in ended.observation.messages[0].content


def test_tic_tac_toe_against_the_built_in_opponent(env):
    first = env.reset(seed=5, env_id="TicTacToe-v0").observation
    assert first.legal_players == [0, 1] and first.current_player_id == 0
    step = say(env, "[4]")
    board = env.state().raw_state["game_state"]["board"]
    assert board[1][1] == "O" and sum(cell == "X" for row in board for cell in row) == 1
    assert (
        step.observation.current_player_id == 0
        and "Player 1" in step.observation.messages[0].content
    )
    while not step.done:  # play the first free cell until the game ends
        board = env.state().raw_state["game_state"]["board"]
        free = next(r * 3 + c for r in range(3) for c in range(3) if board[r][c] == "")
        step = say(env, f"[{free}]")
    assert step.reward in (-1.0, 0.0, 1.0)


def test_the_heuristic_opponent_blocks_and_wins_at_connect_four(env):
    env.reset(seed=1, env_id="ConnectFour-v0")
    for _ in range(2):
        say(env, "[col 0]")
    third = say(env, "[col 0]")  # three in column 0: the opponent must block on top
    board = env.state().raw_state["game_state"]["board"]
    column = [row[0] for row in board]
    assert not third.done and column.count("X") == 3 and column[2] == "O"


def test_the_same_seed_replays_the_same_game(env):
    def play() -> str:
        env.reset(seed=42, env_id="Minesweeper-v0")
        say(env, "[3 4]")
        return say(env, "[0 0]").observation.messages[0].content

    assert play() == play()


def test_a_wrong_type_or_an_overlong_message_is_refused_and_the_session_goes_on(url):
    with connect(url.replace("http", "ws", 1) + "/ws") as ws:
        ws.send(json.dumps({"type": "reset", "data": {"seed": 0, "env_id": "TowerOfHanoi-v0"}}))
        assert json.loads(ws.recv())["type"] == "observation"
        for bad in (123, "x" * 1001):
            ws.send(json.dumps({"type": "step", "data": {"message": bad}}))
            reply = json.loads(ws.recv())
            assert reply["type"] == "error" and reply["data"]["code"] == "VALIDATION_ERROR"
        ws.send(json.dumps({"type": "step", "data": {"message": "[A C]"}}))
        reply = json.loads(ws.recv())
        assert reply["type"] == "observation" and "moved disk 1" in json.dumps(reply)


def test_an_unknown_game_is_refused_with_the_offered_ones(env):
    with pytest.raises(ClientError) as refused:
        env.reset(env_id="Chess-v0")
    assert refused.value.server_code == "VALIDATION_ERROR" and "Wordle-v0" in refused.value.message


def test_a_game_whose_data_is_missing_is_refused_at_reset(env, monkeypatch):
    monkeypatch.setattr(offline, "_present", lambda resource: False)
    with pytest.raises(ClientError) as refused:
        env.reset(env_id="Hangman-v0")
    assert refused.value.server_code == "VALIDATION_ERROR"
    assert "words" in refused.value.message and "never downloads" in refused.value.message
    env.reset(env_id="Sudoku-v0")  # games without data still start


def test_nltk_never_downloads():
    offline.textarena()
    import nltk

    assert nltk.download is offline.offline_download
    assert offline.offline_download("words") and not offline.offline_download("punkt")


@pytest.mark.parametrize("env_id", GAME_IDS)
def test_every_offered_game_resets_steps_and_draws(env_id):
    local = TextArenaEnvironment()
    first = local.reset(seed=0, env_id=env_id)
    assert first.prompt and first.messages[0].content.startswith("\n[GAME]")
    step = local.step(TextArenaAction(message=GAMES[env_id].example or "[0]"))
    assert step.messages[0].content.startswith(first.messages[0].content)
    assert isinstance(local.render(), Board | Text)
    json.dumps(local.state.model_dump())


def test_minesweeper_cells_and_tic_tac_toe_squares_are_clickable():
    local = TextArenaEnvironment()
    local.reset(seed=0, env_id="Minesweeper-v0-small")
    board = local.render()
    assert board.cell_action(2, 3) == {"message": "[2 3]"}
    local.reset(seed=0, env_id="TicTacToe-v0")
    local.step(TextArenaAction(message="[4]"))
    board = local.render()
    with pytest.raises(ValueError):
        board.cell_action(1, 1)  # taken
    board = local.state.raw_state["game_state"]["board"]
    free = [n for n in range(9) if board[n // 3][n % 3] == ""]
    assert len(free) == 7 and [c.action for c in local.legal_actions()] == [
        {"message": f"[{n}]"} for n in free
    ]


def test_a_direct_reset_with_missing_data_raises_invalid_action(monkeypatch):
    monkeypatch.setattr(offline, "_present", lambda resource: False)
    with pytest.raises(InvalidAction, match="Wordle-v0 cannot start"):
        TextArenaEnvironment().reset(env_id="Wordle-v0")


def test_hangman_is_won_by_guessing_the_word(env):
    local = TextArenaEnvironment()
    local.reset(seed=3, env_id="Hangman-v0")
    word = unwrapped(local._game).state.game_state["target_word"]
    env.reset(seed=3, env_id="Hangman-v0")
    missing = next(ch for ch in "qzxjkvwy" if ch not in word.lower())
    assert not say(env, f"[{missing}]").done
    win = say(env, f"[{word}]")
    assert win.done and win.reward == pytest.approx(1.0)


def test_interleaved_sessions_replay_exactly_as_when_played_alone():
    def moves(env: TextArenaEnvironment) -> str:
        return env.step(TextArenaAction(message="[col 3]")).messages[0].content

    alone = {}
    for seed in (1, 2):
        solo = TextArenaEnvironment()
        solo.reset(seed=seed, env_id="ConnectFour-v0", opponent="random")
        alone[seed] = [moves(solo) for _ in range(3)]
    a, b = TextArenaEnvironment(), TextArenaEnvironment()
    a.reset(seed=1, env_id="ConnectFour-v0", opponent="random")
    b.reset(seed=2, env_id="ConnectFour-v0", opponent="random")
    together: dict[int, list[str]] = {1: [], 2: []}
    for _ in range(3):
        together[2].append(moves(b))
        together[1].append(moves(a))
    assert together == alone


def test_a_second_player_seat_lets_both_sides_move_in_turn():
    from textarena_env.server.environment import TextArenaEnvironment

    env = TextArenaEnvironment()
    first = env.reset(seed=1, env_id="TicTacToe-v0", opponent="human")
    assert first.current_player_id == 0
    assert env.step(TextArenaAction(message="[4]")).current_player_id == 1  # nobody replied
    assert env.step(TextArenaAction(message="[0]")).current_player_id == 0
    assert env.render().to_text().splitlines()[:2] == ["X  ", " O "]


# -- games from rows of a task file (task_source / task_index) ------------------------------


def test_a_shipped_row_plays_its_game_with_its_secret_word(env):
    first = env.reset(task_source="games.jsonl", task_index=0).observation
    assert "You are Playing Wordle" in first.messages[0].content
    state = env.state()
    assert (state.env_id, state.task_source, state.task_index) == ("Wordle-v0", "games.jsonl", 0)
    assert "secret_word" not in state.raw_state["game_state"]
    won = say(env, "[crane]")
    assert won.done and won.reward == 1.0
    env.reset(task_source="games.jsonl", task_index=3)
    assert env.state().env_id == "Hangman-v0"
    assert say(env, "[python]").reward == 1.0


def test_a_rows_seed_fixes_the_game_whatever_the_reset_seed_and_a_seed_picks_a_row(env):
    grids = {
        env.reset(seed=seed, task_source="games.jsonl", task_index=5).observation.prompt
        + env.state().raw_state["game_state"].__repr__()
        for seed in (1, 2)
    }
    assert len(grids) == 1 and env.state().env_id == "Sudoku-v0-easy"
    picks = [env.reset(seed=9, task_source="games.jsonl") and env.state() for _ in range(2)]
    assert picks[0].task_index == picks[1].task_index and picks[0].env_id == picks[1].env_id


def test_a_row_picks_the_opponent_of_a_two_player_game():
    local = TextArenaEnvironment()
    local.reset(seed=0, task_source="games.jsonl", task_index=10)
    assert (local.state.env_id, local._opponent) == ("ConnectFour-v0", "random")
    sides = TextArenaEnvironment.sides_for({"task_source": "games.jsonl", "task_index": 9})
    assert sides == ("O", "X")


BAD_ROWS = [  # each refused naming the row, with these words
    ({"env_id": "Chess-v9"}, r"row 0 of bad.jsonl: unknown game 'Chess-v9'; .*Wordle-v0"),
    ({"game": "Wordle-v0", "secret": "cranes"}, r"row 0 of bad.jsonl: .*not 5 letters"),
    ({"env_id": "Wordle-v0", "secret": "zzzzz"}, r"not in Wordle's dictionary"),
    ({"env_id": "Hangman-v0", "secret": "two words"}, r"row 0 of bad.jsonl: String should"),
    ({"env_id": "Sudoku-v0", "secret": "crane"}, r"Sudoku-v0 hides no word"),
    ({"env_id": "Sudoku-v0", "seed": "7"}, r"row 0 of bad.jsonl: Input should be a valid int"),
    ({"env_id": "Sudoku-v0", "seed": -1}, r"greater than or equal to 0"),
    ({"env_id": "Wordle-v0", "opponent": "random"}, r"a game of one player"),
    ({"env_id": "TicTacToe-v0", "opponent": "smart"}, r"row 0 of bad.jsonl: Input should be"),
    ({"word": "crane"}, r"row 0 of bad.jsonl has no column for 'env_id'"),
]


def read_game(picked) -> None:
    """What a reset does with a row: the game it names, its secret planted."""
    from textarena_env.server.games import build
    from textarena_env.server.task_rows import plant_secret, row_game

    game = row_game(picked)
    plant_secret(build(game.env_id), game)


def test_the_shipped_task_file_keeps_the_task_source_contract():
    from textarena_env.server.task_rows import TASK_ROWS

    check_task_source(
        TextArenaEnvironment,
        TASK_ROWS,
        rows=12,
        gives="game",
        replaced={"env_id": "Sudoku-v0"},
        read=read_game,
        bad_rows=BAD_ROWS,
    )


def test_with_the_hub_allowed_a_row_of_a_hub_dataset_is_played(tmp_path):
    from fake_hub import fake_hub

    from tests.servers import serve

    rows = [{"game": "Wordle-v0", "secret_word": "tiger"}, {"game": "Chess-v9"}]
    (tmp_path / "hf").mkdir()
    with fake_hub() as hub:
        hub.add_dataset("owner/games", {"train": rows})
        settings = {
            "OPENENV_TASK_HUB": "1",
            "HF_ENDPOINT": hub.url,
            "HF_HOME": str(tmp_path / "hf"),
        }
        with (
            serve("textarena_env.server.app:app", env=settings) as base,
            TextArenaEnv(base_url=base).sync() as client,
        ):
            client.reset(task_source="hf://owner/games", task_index=0)
            assert client.state().task_source == "hf://owner/games"
            assert say(client, "[tiger]").reward == 1.0
            with pytest.raises(ClientError) as refused:
                client.reset(task_source="hf://owner/games", task_index=1)
            assert "row 1 of hf://owner/games: unknown game 'Chess-v9'" in refused.value.message
