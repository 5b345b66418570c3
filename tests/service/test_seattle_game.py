"""The Battle of Seattle, a whole game by order mail on a real database (rulebook 3.0-3.4):
every step of the sequence is a phase of its own that mails the seat who must act (and only
that seat is asked for orders), the reinforcement phase is sealed and answered by both sides,
an illegal order is refused naming its line, a missed deadline applies the documented
defaults, and the game ends after the afternoon of 2 December with the victory level and the
dice seed; the archive verifies.
On SQLite only (sqlite_only): test_corteo_game.py plays a whole game on PostgreSQL."""

from __future__ import annotations

from pbem.games.seattle import RULES
from pbem.service import archive, games, inbound, store, turns
from pbem.service.games import SeatSpec
from pbem.service.verify import verify_data
from tests.service.conftest import sqlite_only
from tests.service.helpers import files_of, last_id, outbox, text_of
from tests.support.chance import chooser
from tests.support.players import order_block, player_mail, secret_from_welcome

ADDRESSES = {"demonstrators": "dem@example.org", "authorities": "auth@example.org"}


def _state(ctx, game_id):  # type: ignore[no-untyped-def]
    with ctx.session() as session:
        return store.state_of(store.get_game(session, game_id))


@sqlite_only
def test_a_whole_game_by_mail(ctx, clock):  # type: ignore[no-untyped-def]
    game_id = games.create(ctx, "seattle", "Seattle 1999", [SeatSpec("demonstrators", ADDRESSES["demonstrators"], "it"),
                                                             SeatSpec("authorities", ADDRESSES["authorities"])])
    secrets = {s: secret_from_welcome(text_of(outbox(ctx, to=a, kind="welcome")[0])) for s, a in ADDRESSES.items()}
    shown = games.show_game(ctx, game_id)
    # The set-up draw (a server step) was made at creation: the Demonstrators place five Crowds.
    assert shown["phase"] == "setup" and shown["awaiting"] == ["demonstrators"]

    def send(seat: str, lines: list[str]):  # type: ignore[no-untyped-def]
        mail = player_mail(ADDRESSES[seat], order_block(game_id, seat, secrets[seat], lines))
        return inbound.handle(ctx, mail)

    # Nothing is asked of the Authorities now: their mail is refused with the reason.
    result = send("authorities", ["PASS"])
    assert result.status == "refused"
    refusal = text_of(outbox(ctx, to=ADDRESSES["authorities"], kind="reply")[-1])
    assert "awaits orders from Demonstrators, not from Authorities" in refusal  # the seats by name
    # Italian player, Italian keywords; the Crowds placed by kind.
    assert send("demonstrators", ["PIAZZA FOLLA westlake", "PIAZZA FOLLA Pike Place Market"]).status == "orders"
    echo = text_of(outbox(ctx, to=ADDRESSES["demonstrators"], kind="reply")[-1])
    assert "PLACE" in echo and "WESTLAKE" in echo

    pick = chooser("seattle-mail")
    seen_phases: set[str] = set()
    refused = missed = False
    for _ in range(200):
        shown = games.show_game(ctx, game_id)
        if shown["status"] == "finished":
            break
        phase, awaiting = shown["phase"], shown["awaiting"]
        seen_phases.add(phase)
        mark = last_id(ctx)  # the reports of this phase are the rows after it (none decrypted twice)
        if phase == "authority-movement" and not refused:
            refused = True
            # 5.0: three areas at most; the reply names the line and what the unit can reach.
            bad = send("authorities", ["PASS", "MOVE SPD1 first-hill capitol-hill paramount roosevelt"])
            assert bad.status == "refused"
            reply = text_of(outbox(ctx, to=ADDRESSES["authorities"], kind="reply")[-1])
            assert "line 4 of your orders: MOVE SPD1" in reply and "moves 3 areas at most, not 4" in reply  # block line 4
        if phase == "demonstrator-movement" and shown["turn"] == 5 and not missed:
            missed = True
            clock.advance(hours=49)  # the deadline passes: nobody moves (the documented default)
            assert turns.resolve_due(ctx) == 1
            report = text_of(outbox(ctx, to=ADDRESSES["authorities"], kind="report", after=mark)[-1])
            assert "demonstrators" in report and "PASS" in report
            continue
        state = _state(ctx, game_id)
        assert tuple(awaiting) == RULES.phase(state).awaiting
        for seat in awaiting:
            text = RULES.random_orders(state, seat, pick)
            assert send(seat, text.splitlines()).status == "orders", (phase, seat, text)
        clock.advance(minutes=30)
        # The report of the phase resolved goes to both; only the seats now awaited get the
        # ORDERS template of the next phase.
        shown = games.show_game(ctx, game_id)
        for seat, address in ADDRESSES.items():
            reports = outbox(ctx, to=address, kind="report", after=mark)
            assert len(reports) == 1
            body = text_of(reports[-1])
            asked = "TURN" in body and ("Your orders" in body or "I tuoi ordini" in body)
            assert asked == (seat in shown["awaiting"] and shown["status"] != "finished"), (seat, shown["phase"])
    shown = games.show_game(ctx, game_id)
    assert shown["status"] == "finished" and refused and missed
    assert {"reinforcements", "demonstrator-movement", "demonstrator-combat", "authority-movement",
            "authority-combat"} <= seen_phases
    outcome = shown["outcome"]
    assert outcome["result"] == "win" and outcome["reason"] in ("authorities", "marginal", "substantive", "decisive")
    final = outbox(ctx, to=ADDRESSES["demonstrators"], kind="report")[-1]
    assert shown["seed"] in text_of(final)
    assert "Fine della partita" in text_of(final)  # the Demonstrators read Italian
    png = files_of(final)
    assert any(name.endswith(".png") and data.startswith(b"\x89PNG") for name, data in png.items())
    report = verify_data(archive.archive_data(ctx, game_id))
    assert report.ok, report.problem
    assert report.rolls > 50  # events, draws, combats, morale checks, barricades
