"""Arditi del Popolo, a whole 4-player game by order mail on a real database: seat
order, a die mailed at the start of each turn, the police phase that belongs to no
player, one seat missing a deadline (its corteo stays put) and one seat leaving
mid-game (an abandoned seat plays its default orders at once); then the archive
verifies."""

from __future__ import annotations

from pbem.service import archive, games, inbound, turns
from pbem.service.games import SeatSpec
from pbem.service.verify import verify_data
from tests.service.helpers import outbox, text_of
from tests.support.players import order_block, player_mail, secret_from_welcome

SEATS = ("red", "blue", "green", "yellow")


def test_four_players_by_mail_with_a_missed_deadline_and_a_player_leaving(ctx, clock):  # type: ignore[no-untyped-def]
    addresses = {s: f"{s}@example.org" for s in SEATS}
    game_id = games.create(ctx, "arditi", "Corteo a quattro", [SeatSpec(s, a) for s, a in addresses.items()],
                           options={"rounds": "5"})
    secrets = {s: secret_from_welcome(text_of(outbox(ctx, to=a, kind="welcome")[0])) for s, a in addresses.items()}
    shown = games.show_game(ctx, game_id)
    assert shown["awaiting"] == ["red"] and shown["turn"] == 1  # the set-up draws were made at creation
    missed = left = False
    moves = 0
    for _ in range(60):
        shown = games.show_game(ctx, game_id)
        if shown["status"] == "finished":
            break
        (seat,) = shown["awaiting"]
        if seat == "green" and not missed:
            missed = True
            clock.advance(hours=73)  # green misses the deadline: its corteo stays put
            assert turns.resolve_due(ctx) == 1
            report = text_of(outbox(ctx, to=addresses["red"], kind="report")[-1])
            assert "No orders from green" in report and "STAY" in report
            continue
        if seat == "yellow" and moves > 6 and not left:
            left = True
            mail = player_mail(addresses[seat], order_block(game_id, seat, secrets[seat], ["LEAVE CONFIRM"]))
            assert inbound.handle(ctx, mail).status == "command"
            continue
        text = "AUTO"  # the server picks a legal move with this roll and files it as a concrete PATH
        result = inbound.handle(ctx, player_mail(addresses[seat], order_block(game_id, seat, secrets[seat], [text])))
        assert result.status == "orders", (seat, result)
        moves += 1
        clock.advance(minutes=30)
    shown = games.show_game(ctx, game_id)
    assert shown["status"] == "finished" and missed and left
    assert {s["seat"]: s["status"] for s in shown["seats"]}["yellow"] == "abandoned"
    final = text_of(outbox(ctx, to=addresses["blue"], kind="report")[-1])
    assert shown["seed"] in final  # the dice seed is revealed with the result
    report = verify_data(archive.archive_data(ctx, game_id))
    assert report.ok, report.problem
    assert report.rolls > 12  # set-up draws, a die each turn, refills
