"""Corteo, a whole advanced game by order mail on a real database, the corteo played by a team
(rulebook C 3a prefers teams): each player has their own secret and language and gets every
report; an order mail from either replaces the sheet and the other is told. The set-up is sealed
and answered by both sides; each hand mails the side in turn; an illegal move is refused naming
its line; HELP streets answers with the street guide and MAP ZOC with a map; a missed deadline
plays the defaults (every unit in contact fights, C 8a); after the tenth hand the final score,
the victory level and the verdict of C 14a are mailed with the dice seed; the archive verifies.
On SQLite and PostgreSQL: the one whole game that keeps the PostgreSQL path covered (the others: sqlite_only)."""

from __future__ import annotations

from pbem.games.corteo import RULES
from pbem.service import archive, games, inbound, store, turns
from pbem.service.verify import verify_data
from tests.service.helpers import files_of, outbox, text_of
from tests.support.chance import chooser
from tests.support.players import order_block, player_mail, secret_from_welcome

ANNA, BEPPE, PIETRO = "anna@example.org", "beppe@example.org", "pietro@example.org"


def test_a_whole_game_by_mail_with_a_team(ctx, clock):  # type: ignore[no-untyped-def]
    corteo = games.SeatSpec.parse(f"corteo={ANNA}:it,{BEPPE}:en")
    game_id = games.create(ctx, "corteo", "Corteo del sabato", [corteo, games.SeatSpec("potere", PIETRO, "it")])
    secrets = {a: secret_from_welcome(text_of(outbox(ctx, to=a, kind="welcome")[0])) for a in (ANNA, BEPPE, PIETRO)}
    seat_of = {ANNA: "corteo", BEPPE: "corteo", PIETRO: "potere"}

    def send(address: str, lines: list[str]):  # type: ignore[no-untyped-def]
        return inbound.handle(ctx, player_mail(address, order_block(game_id, seat_of[address], secrets[address], lines)))

    shown = games.show_game(ctx, game_id)
    assert shown["phase"] == "setup" and set(shown["awaiting"]) == {"corteo", "potere"}
    # HELP streets: the street guide, in the player's language.
    assert send(ANNA, ["HELP strade"]).status == "command"
    guide = text_of(outbox(ctx, to=ANNA, kind="reply")[-1])
    assert "Mento, Piazza" in guide and "PAGINE GIALLE" in guide
    # The set-up, sealed: Anna files, Beppe replaces her sheet, Anna is told who.
    assert send(ANNA, ["TESTA MOV", "PIAZZA MOV1 F6"]).status == "orders"
    assert send(BEPPE, ["HEAD AUTOP", "PLACE AUT1 F6"]).status == "orders"
    told = [r for r in outbox(ctx, to=ANNA) if BEPPE in r.subject or BEPPE in text_of(r)]
    assert told and "HEAD AUTOP" in text_of(told[-1])
    assert send(PIETRO, ["PIAZZA CE1 G10", "PIAZZA PI1 F13"]).status == "orders"
    shown = games.show_game(ctx, game_id)
    assert shown["phase"] == "corteo-movement" and shown["turn"] == 1
    with ctx.session() as session:
        state = store.state_of(store.get_game(session, game_id))
    assert state.head_component == "AUTOP"
    units = {u.id: u.loc for u in state.units}
    assert units["AUT1"] == "F6" and units["CE1"] == "G10" and units["PI1"] == "F13"
    # Both players of the team get every report.
    assert outbox(ctx, to=ANNA, kind="report") and outbox(ctx, to=BEPPE, kind="report")
    # 5c: no running in the first hand: refused, naming the line.
    assert send(BEPPE, ["RUN"]).status == "refused"
    assert "line 3" in text_of(outbox(ctx, to=BEPPE, kind="reply")[-1])
    # MAP ZOC: a map with the zones of control.
    assert send(PIETRO, ["MAP ZOC"]).status == "command"
    assert any(n.endswith(".png") for n in files_of(outbox(ctx, to=PIETRO, kind="reply")[-1]))

    pick = chooser("corteo-mail")
    missed = False
    for _ in range(80):
        shown = games.show_game(ctx, game_id)
        if shown["status"] == "finished":
            break
        (seat,) = shown["awaiting"]
        if shown["turn"] == 4 and seat == "potere" and shown["phase"] == "potere-movement" and not missed:
            missed = True
            clock.advance(hours=49)  # the power misses a deadline: reinforcements placed by default
            assert turns.resolve_due(ctx) == 1
            continue
        with ctx.session() as session:
            state = store.state_of(store.get_game(session, game_id))
        text = RULES.random_orders(state, seat, pick)
        sender = PIETRO if seat == "potere" else (ANNA if shown["turn"] % 2 else BEPPE)
        result = send(sender, text.splitlines())
        assert result.status == "orders", (shown, text)
        clock.advance(minutes=20)
    shown = games.show_game(ctx, game_id)
    assert shown["status"] == "finished" and missed
    assert shown["outcome"]["reason"] in ("corteo-crushing", "corteo-narrow", "draw", "potere-narrow",
                                          "potere-crushing", "corteo-rout")
    for address, words in ((ANNA, "Fine del gioco"), (BEPPE, "End of the game"), (PIETRO, "Fine del gioco")):
        final = text_of(outbox(ctx, to=address, kind="report")[-1])
        assert words in final and shown["seed"] in final
    report = verify_data(archive.archive_data(ctx, game_id))
    assert report.ok, report.problem
