"""HISTORY (issue 19.4): without a turn, every resolved turn with its orders, what came of
them and its dice, as far as the seat may see (another seat's sealed sheet only through the
result the engine reports to this seat); a long game gives the latest turns and says how
to ask for an earlier one."""

from __future__ import annotations

import re

from pbem.service import games, history, inbound, store
from tests.service.helpers import BLUE, RED, outbox, text_of
from tests.service.test_reports import play_turn
from tests.support.players import order_block, player_mail

PLAYS = [(1, 2), (3, 1), (2, 3), (1, 3), (2, 1)]


def _ask(ctx, game_id, secrets, arg: str = "") -> str:  # type: ignore[no-untyped-def]
    line = f"HISTORY {arg}".strip()
    assert inbound.handle(ctx, player_mail(RED, order_block(game_id, "red", secrets["red"], [line]))).status == "command"
    return text_of(outbox(ctx, to=RED, kind="reply")[-1]).replace("\r\n", "\n")


def _play(ctx, game_id, secrets, turns: int) -> dict[int, tuple[int, int]]:  # type: ignore[no-untyped-def]
    """Up to ``turns`` rounds (a tie's decision answered SPLIT); what each seat played, by turn."""
    played: dict[int, tuple[int, int]] = {}
    for red, blue in PLAYS[:turns]:
        shown = games.show_game(ctx, game_id)
        if shown["status"] == "finished":
            break
        if shown["phase"] == "tiebreak":
            mail = player_mail(RED, order_block(game_id, "red", secrets["red"], ["SPLIT"]))
            assert inbound.handle(ctx, mail).status == "orders"
            shown = games.show_game(ctx, game_id)
        played[shown["turn"]] = (red, blue)
        play_turn(ctx, game_id, secrets, red, blue)
    return played


def _resolved(ctx, game_id):  # type: ignore[no-untyped-def]
    with ctx.session() as s:
        return [(r.seq, r.turn, r.name) for r in store.phases(s, game_id) if r.resolved_at is not None]


def test_history_lists_every_turn_with_orders_results_and_dice(ctx, duel):  # type: ignore[no-untyped-def]
    game_id, secrets = duel
    assert "No turn has been resolved yet." in _ask(ctx, game_id, secrets)
    played = _play(ctx, game_id, secrets, 3)
    text = _ask(ctx, game_id, secrets)
    turns = [int(n) for n in re.findall(r"^Turn (\d+) \(", text, re.M)]
    assert turns == [turn for _seq, turn, _name in _resolved(ctx, game_id)] and set(played) <= set(turns)
    for turn, (red, blue) in played.items():
        block = text.split(f"Turn {turn} (play)", 1)[1].split("\nTurn ", 1)[0]
        assert f"red: PLAY {red}" in block  # the seat's own orders, with their receipt
        assert "blue: PLAY" not in block  # the other seat's sealed sheet is not shown as such…
        assert f"blue played {blue}" in block  # …but what the engine reported of it is
        assert re.search(r"#\d+ red die: d6 = [1-6]", block) and re.search(r"#\d+ blue die: d6 = [1-6]", block)
    assert "earlier turn" not in text  # a short game is listed whole


def test_a_long_history_gives_the_latest_turns_and_says_how_to_ask_for_more(ctx, duel, monkeypatch):  # type: ignore[no-untyped-def]
    game_id, secrets = duel
    monkeypatch.setattr(history, "MAX_TURNS", 2)
    played = _play(ctx, game_id, secrets, len(PLAYS))
    phases = _resolved(ctx, game_id)
    assert len(phases) >= 3  # three points win: at least three rounds
    text = _ask(ctx, game_id, secrets)
    assert f"latest 2 of the game's {len(phases)} resolved moves and phases" in text
    shown = [int(n) for n in re.findall(r"^Turn (\d+) \(", text, re.M)]
    assert shown == [turn for _seq, turn, _name in phases[-2:]]
    first_shown = phases[-2][1]
    assert f"HISTORY {first_shown - 1}" in text
    assert "Turn 1 (" not in text
    one = _ask(ctx, game_id, secrets, "1")  # an earlier turn on request, whole
    assert re.findall(r"^Turn (\d+) \(", one, re.M) == ["1"] * sum(1 for p in phases if p[1] == 1)
    assert f"red: PLAY {played[1][0]}" in one and "latest" not in one


def test_history_in_italian_and_a_turn_not_yet_played(ctx, duel):  # type: ignore[no-untyped-def]
    game_id, secrets = duel
    play_turn(ctx, game_id, secrets, 2, 3)
    assert inbound.handle(ctx, player_mail(BLUE, order_block(game_id, "blue", secrets["blue"], ["STORIA"]))).status \
        == "command"
    storia = text_of(outbox(ctx, to=BLUE, kind="reply")[-1])
    assert "Storia di" in storia and "Turno 1 (" in storia and "blue: PLAY 3" in storia and "red: PLAY" not in storia
    assert "Dadi:" in storia
    later = _ask(ctx, game_id, secrets, "9")
    assert "No resolved turn 9 yet." in later
