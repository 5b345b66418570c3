"""DRAW and CONCEDE (PATTA, CEDO) in a seat's signed block, for every game (architecture
2.8): a draw needs every seat still in play; a vote stands until withdrawn (DRAW NO); a
concession ends the game for that seat and the last seat standing wins; the votes go into
the outcome and the archive. Kriegspiel keeps its own DRAW and RESIGN orders."""

from __future__ import annotations

import json

from pbem.db.models import Game
from pbem.service import archive, games
from tests.security.support import orders_mail, send
from tests.service.helpers import BLUE, RED, outbox, text_of
from tests.support.players import secret_from_welcome


def _duel(ctx) -> tuple[str, dict[str, str]]:  # type: ignore[no-untyped-def]
    game_id = games.create(ctx, "duel", "Votes", [games.SeatSpec("red", RED), games.SeatSpec("blue", BLUE, "it")])
    return game_id, {a: secret_from_welcome(text_of(outbox(ctx, to=a, kind="welcome")[0])) for a in (RED, BLUE)}


def _game(ctx, game_id: str) -> Game:  # type: ignore[no-untyped-def]
    with ctx.session() as s:
        game = s.get(Game, game_id)
        assert game is not None
        return game


def test_a_draw_needs_every_seat_and_a_vote_can_be_withdrawn(ctx) -> None:  # type: ignore[no-untyped-def]
    game_id, secret = _duel(ctx)
    first = send(ctx, orders_mail(RED, game_id, "red", secret[RED], ["DRAW", "Shall we call it a day?"]))
    assert (first.status, first.note) == ("command", "draw")
    told = outbox(ctx, to=BLUE)[-1]
    assert "vota per la patta" in text_of(told) and "Shall we call it a day?" in text_of(told)
    assert "Still to vote: blue" in text_of(outbox(ctx, to=RED)[-1])
    assert _game(ctx, game_id).status == "active"
    assert send(ctx, orders_mail(RED, game_id, "red", secret[RED], ["DRAW NO"])).note == "draw withdrawn"
    assert "ritirato" in text_of(outbox(ctx, to=BLUE)[-1])
    assert send(ctx, orders_mail(RED, game_id, "red", secret[RED], ["DRAW NO"])).status == "refused"
    # blue's vote alone does not end the game: red withdrew
    send(ctx, orders_mail(BLUE, game_id, "blue", secret[BLUE], ["PATTA"]))
    assert _game(ctx, game_id).status == "active"
    send(ctx, orders_mail(RED, game_id, "red", secret[RED], ["draw"]))
    game = _game(ctx, game_id)
    assert game.status == "finished" and game.seed_revealed
    outcome = json.loads(game.outcome_json)
    assert (outcome["result"], outcome["reason"]) == ("draw", "agreement")
    assert [(v["seat"], v["vote"], v["withdrawn_at"] is not None) for v in outcome["votes"]] == [
        ("red", "draw", True), ("blue", "draw", False), ("red", "draw", False)]
    final = outbox(ctx, to=RED)[-1]
    assert "a draw" in text_of(final) and game.seed_hex in text_of(final)
    data = archive.archive_data(ctx, game_id)
    assert data["game"]["outcome"]["votes"] == outcome["votes"] and len(data["game"]["votes"]) == 3
    # the game is over: no more votes or orders
    assert send(ctx, orders_mail(BLUE, game_id, "blue", secret[BLUE], ["CEDO"])).status == "refused"


def test_the_last_seat_standing_wins(ctx) -> None:  # type: ignore[no-untyped-def]
    game_id, secret = _duel(ctx)
    result = send(ctx, orders_mail(BLUE, game_id, "blue", secret[BLUE], ["CEDO", "Ben giocato."]))
    assert result.note == "concede"
    game = _game(ctx, game_id)
    outcome = json.loads(game.outcome_json)
    assert game.status == "finished" and (outcome["result"], outcome["winners"]) == ("win", ["red"])
    assert "Ben giocato." in "".join(text_of(r) for r in outbox(ctx, to=RED))
    assert "red wins" in text_of(outbox(ctx, to=RED)[-1])


def test_vote_words_with_more_after_them_stay_orders(ctx) -> None:  # type: ignore[no-untyped-def]
    game_id, secret = _duel(ctx)
    result = send(ctx, orders_mail(RED, game_id, "red", secret[RED], ["DRAW 3"]))
    assert result.status == "refused" and "errors" in result.note  # the duel's parser read it, as orders


def test_kriegspiel_keeps_its_own_draw() -> None:
    """Kriegspiel's DRAW is an order of the game (rulebook: the offer and its acceptance are
    moves), so the words are not taken as a vote there."""
    from pbem.mail.envelope import parse_envelope
    from pbem.service import votes

    env = parse_envelope("GAME k1\nSEAT north abcd\nDRAW\nEND\n")
    assert votes.read(env, "kriegspiel") is None
    assert votes.read(env, "corteo") == ("draw", False, [])


def test_a_game_ended_by_votes_exports_and_verifies(ctx, tmp_path) -> None:  # type: ignore[no-untyped-def]
    from pbem.service import verify

    game_id, secret = _duel(ctx)
    send(ctx, orders_mail(RED, game_id, "red", secret[RED], ["PLAY 1"]))
    send(ctx, orders_mail(BLUE, game_id, "blue", secret[BLUE], ["GIOCA 2"]))  # one turn resolved
    send(ctx, orders_mail(RED, game_id, "red", secret[RED], ["CONCEDE"]))
    out = archive.export(ctx, game_id, tmp_path / "archive")
    report = verify.verify_path(out.parent)
    assert report.ok, report.text()
    assert "concession" in out.read_text(encoding="utf-8")  # the outcome on the archive's page


def test_in_a_game_of_three_a_concession_leaves_the_others_playing(ctx) -> None:  # type: ignore[no-untyped-def]
    """Arditi for three: red concedes and is out of play (the phase no longer waits for it, a
    draw now needs blue and green only); blue concedes too and green, the last seat
    standing, wins."""
    from pbem.service import store

    addresses = {"red": RED, "blue": BLUE, "green": "green@example.org"}
    game_id = games.create(ctx, "arditi", "Three", [games.SeatSpec(s, a) for s, a in addresses.items()])
    secret = {a: secret_from_welcome(text_of(outbox(ctx, to=a, kind="welcome")[0])) for a in addresses.values()}
    send(ctx, orders_mail(BLUE, game_id, "blue", secret[BLUE], ["DRAW"]))
    assert send(ctx, orders_mail(RED, game_id, "red", secret[RED], ["CONCEDE"])).note == "concede"
    game = _game(ctx, game_id)
    assert game.status == "active"
    with ctx.session() as s:
        seats = {x.name: x.status for x in store.seats(s, game_id)}
    assert seats == {"red": "conceded", "blue": "active", "green": "active"}
    refused = send(ctx, orders_mail(RED, game_id, "red", secret[RED], ["PASS"]))
    assert refused.status == "refused" and "out of play" in text_of(outbox(ctx, to=RED)[-1])
    assert "red" not in games.show_game(ctx, game_id)["awaiting"]  # the phase that waited for red went on
    send(ctx, orders_mail(BLUE, game_id, "blue", secret[BLUE], ["CONCEDE"]))
    game = _game(ctx, game_id)
    outcome = json.loads(game.outcome_json)
    assert game.status == "finished" and (outcome["result"], outcome["winners"]) == ("win", ["green"])
    assert [(v["seat"], v["vote"]) for v in outcome["votes"]] == [("blue", "draw"), ("red", "concede"),
                                                                  ("blue", "concede")]
