"""The course of the game: set-up, turns in seat order, the end and the score (rulebook: the first
paragraphs, "Il gioco si conclude quando finiscono in numeri della tombola ..." and the scoring)."""

import json

import pytest

from pbem.core.dice import ScriptedDice
from pbem.errors import UserError
from pbem.games.arditi import RULES
from pbem.games.arditi.flow import game_over, scores

from .helpers import LoopDice, corteo, play, position, random_game, resolve_server

ELEVEN = corteo(*range(58, 2, -5))  # ring 3, rays 12 down to 1: committee on 58 and 11 militants


def test_setup_is_a_server_phase_that_draws_seats_and_twelve_indifferent():
    """"Ogni giocatore pesca un numero della tombola e dispone il proprio segnalino alla casa
    corrispondente ... Si devono disporre in tutto 12 numeri della tombola pescati a caso dalla borsa"."""
    state = RULES.new_game(["green", "red", "blue"], {})
    assert state.seats == ("red", "blue", "green")  # seat order is the colours' order = play order
    phase = RULES.phase(state)
    assert (phase.turn, phase.name, phase.awaiting) == (0, "setup", ())
    after, dice = resolve_server(state, [1, 2, 3])
    purposes = [r.purpose for r in dice.record]
    bag = "draw from the bag (rank among the numbers left): "
    assert purposes[:3] == [bag + "party seat of red", bag + "party seat of blue", bag + "party seat of green"]
    assert purposes[3:15] == [bag + "indifferent"] * 12
    assert purposes[15:] == ["die for red"]
    assert all(r.sides == 90 - i for i, r in enumerate(dice.record[:15]))  # a roll over what is left
    assert len(after.numbers) == 12 and len(after.bag) == 90 - 15
    assert [p.corteo.squares for p in after.parties] == [(1,), (3,), (5,)]  # the 1st, 2nd, 3rd left
    assert (after.stage, after.round, after.to_move, after.roll) == ("move", 1, "red", 1)
    assert RULES.phase(after).awaiting == ("red",)


def test_players_move_in_seat_order_and_the_die_is_rolled_when_the_turn_begins():
    state = position({"red": corteo(22, 17), "blue": corteo(60), "green": corteo(80)}, roll=1)
    dice = LoopDice([4])
    after = RULES.resolve(state, {"red": RULES.parse_orders(state, "red", "PATH 27")}, dice).state
    assert after.to_move == "blue" and after.roll == 4
    assert [r.purpose for r in dice.record] == ["die for blue"]
    after = play(play(after, "STAY"), "STAY")
    assert (after.round, after.to_move) == (4, "red")


def test_new_game_checks_seats_and_options():
    with pytest.raises(UserError):
        RULES.new_game(["red"], {})
    with pytest.raises(UserError):
        RULES.new_game(["red", "purple"], {})
    with pytest.raises(UserError):
        RULES.new_game(["red", "blue"], {"rounds": "zero"})
    with pytest.raises(UserError):
        RULES.new_game(["red", "blue"], {"speed": "1"})
    assert RULES.new_game(["red", "blue"], {"rounds": "12"}).max_rounds == 12
    assert RULES.info.id_prefix == "a" and RULES.info.min_seats == 2 and RULES.info.max_seats == 6


def test_the_game_ends_when_the_bag_is_empty():
    """"Il gioco si conclude quando finiscono in numeri della tombola" - the last number is taken
    without a roll; the game ends when the move that emptied the bag is over."""
    state = position({"red": corteo(22, 17), "blue": corteo(60)}, numbers=[27], roll=2, bag=[70])
    dice = LoopDice([1])
    after = RULES.resolve(state, {"red": RULES.parse_orders(state, "red", "PATH 32")}, dice).state
    assert dice.record == []
    assert after.stage == "over" and after.result is not None and after.result.reason == "bag"
    assert RULES.phase(after).awaiting == ()
    outcome = RULES.outcome(after)
    assert outcome is not None and outcome.winners == ("red",)


def test_a_corteo_of_twelve_ends_the_game_with_a_bonus():
    """"oppure quando uno dei concorrenti riesce a mettere insieme un corteo con 12 militanti ...
    Premio XII militante pari a 3 punti"."""
    state = position({"red": ELEVEN, "blue": corteo(80)}, numbers=[63], roll=2)
    after = play(state, "PATH 68")
    assert after.result is not None and after.result.reason == "twelve"
    red = next(s for s in after.result.scores if s.seat == "red")
    assert red.active == 12 and red.twelfth and red.points == 2 * 12 + 3


def test_the_game_ends_after_the_last_round():
    """A server safeguard (option ``rounds``, default 40): after the last round the score is counted."""
    state = position({"red": corteo(22, 17), "blue": corteo(60)}, to_move="blue", roll=1, round=40)
    after = play(state, "STAY")
    assert after.result is not None and after.result.reason == "rounds"


def test_the_score():
    """"Ogni militante attivo vale 2 punti. Ogni militante isolato dal corteo si paga 1 punto di
    penalità. Ogni militante arrestato si paga 2 punti di penalità. Premio XII militante pari a 3
    punti" - decision: an isolated militant costs 1 (the final summary), not 2 (the earlier
    paragraph "si paga 2 punti di penalità"): the summary is the scoring rule as such."""
    state = position({"red": corteo(22, 17, 12), "blue": corteo(60, 65)}, headless={"red": [[40, 45, 50]]},
                     arrested={"red": 1, "blue": 2})
    table = {s.seat: s for s in scores(state)}
    assert table["red"].points == 2 * 2 - 3 - 2
    assert table["blue"].points == 2 * 1 - 4


def test_ties_are_broken_by_recruits_then_shared_or_drawn():
    base = position({"red": corteo(22, 17), "blue": corteo(60, 65)})
    over = game_over(base, "rounds")
    assert over.result is not None and over.result.result == "draw" and over.result.winners == ()
    assert RULES.catalog.text(RULES.outcome(over).summary, "it").startswith("Si è giocata")
    three = position({"red": corteo(22, 17), "blue": corteo(60, 65), "green": corteo(80)})
    over = game_over(three, "bag")
    assert over.result is not None and over.result.winners == ("red", "blue")
    text = RULES.catalog.text(RULES.outcome(over).summary, "en")
    assert "Red and Blue" in text and "2 points" in text
    assert "Rosso e Blu" in RULES.catalog.text(RULES.outcome(over).summary, "it")


def test_abandoned_seats_stay_put_and_the_game_still_ends():
    """Default orders (a missed deadline, an abandoned seat): the corteo stays put. The others go on
    recruiting, the bag empties, and the round limit ends the game in any case."""
    states = list(random_game(seed=5, seats=("red", "blue", "green"), options={"rounds": "12"},
                              defaults=("blue", "green")))
    final = states[-1]
    assert final.result is not None
    assert final.party("blue").corteo.militants == 0
    assert len(states) <= 1 + 12 * 4


@pytest.mark.parametrize("seats", [2, 3, 4, 5, 6])
def test_random_games_with_server_phases_end_replay_and_round_trip(seats):
    """What the conformance suite checks, with the set-up and police phases resolved as the service
    resolves them (at once, with no sheets): every game ends; codec round-trip; replay equality."""
    names = ("red", "blue", "green", "yellow", "white", "black")[:seats]
    for seed in range(2):
        states = list(random_game(seed=seed, seats=names))
        assert states[-1].result is not None
        for state in states[:: max(1, len(states) // 10)]:
            data = json.loads(json.dumps(RULES.encode_state(state)))
            assert RULES.decode_state(data) == state
            for viewer in (*names, None):
                json.dumps(RULES.view(state, viewer))


def test_replay_with_recorded_dice_gives_the_same_game():
    from pbem.core.dice import VerifiableDice, orders_digest

    from .helpers import chooser

    pick = chooser(11)
    state = RULES.new_game(["red", "blue", "green"], {})
    log = []
    counter = 0
    for number in range(60):
        phase = RULES.phase(state)
        sheets = {s: RULES.parse_orders(state, s, RULES.random_orders(state, s, pick)) for s in phase.awaiting}
        texts = {s: sh.canonical() for s, sh in sheets.items()}
        dice = VerifiableDice(b"seed", "a7", number, orders_digest(texts), counter)
        state = RULES.resolve(state, sheets, dice).state
        counter = dice.next_counter
        log.append((texts, [r.value for r in dice.record], state))
    again = RULES.new_game(["red", "blue", "green"], {})
    for texts, values, expected in log:
        sheets = {s: RULES.parse_orders(again, s, t) for s, t in texts.items()}
        again = RULES.resolve(again, sheets, ScriptedDice(values)).state
        assert again == expected
