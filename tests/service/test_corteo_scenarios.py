"""Corteo's scenarios (rulebook D) by order mail on a real SQLite database, each to its end: the
corteo held by a team of two (one Italian, one English), the power by one player. The game master's
``scenario`` option picks the scenario; ORDINI answers with the scenario's own orders; the power
moves the mobile objectives and the corteo activates dissidents by mail (Sociale: writes its secret place); every report carries the
scenario's running tally in the reader's language; after the tenth hand the score with the
scenario's points, the victory level and the dice seed reach every player; the archive verifies.
On SQLite only (sqlite_only): test_corteo_game.py plays a whole Corteo game on PostgreSQL."""

from __future__ import annotations

import pytest

from pbem.games.corteo import RULES
from pbem.service import archive, games, inbound, store
from pbem.service.verify import verify_data
from tests.service.conftest import sqlite_only
from tests.service.helpers import outbox, text_of
from tests.support.chance import chooser
from tests.support.players import order_block, player_mail, secret_from_welcome

ANNA, BEPPE, PIETRO = "anna@example.org", "beppe@example.org", "pietro@example.org"
OWN = {"internazionalista": ("PRE1", "Corteo Presidenziale: PRE1", "PIAZZA PRE1 M18"),
       "antifascista": ("POC1", "comizio reazionario: COM1", "PIAZZA POC1 N2"),
       "antirepressivo": ("MOV14", "Sotto processo in Tribunale: MOV14", "- F12"),
       "sociale": ("MOV1", "Luogo segreto di formazione: C2 C3 D2", "PIAZZA MOV1 A11")}
SECRET_PLACE = "FORMAZIONE C2 C3 D2 D3 D4 D5 D6 D7 D8 D9 D10 D11"


@sqlite_only
@pytest.mark.parametrize("key", ["internazionalista", "antifascista", "antirepressivo", "sociale"])
def test_a_scenario_to_its_end_by_mail_with_a_team(ctx, clock, key):  # type: ignore[no-untyped-def]
    corteo = games.SeatSpec.parse(f"corteo={ANNA}:it,{BEPPE}:en")
    game_id = games.create(ctx, "corteo", f"Corteo {key}", [corteo, games.SeatSpec("potere", PIETRO, "it")],
                           options={"scenario": key})
    secrets = {a: secret_from_welcome(text_of(outbox(ctx, to=a, kind="welcome")[0])) for a in (ANNA, BEPPE, PIETRO)}
    seat_of = {ANNA: "corteo", BEPPE: "corteo", PIETRO: "potere"}

    def send(address: str, lines: list[str]):  # type: ignore[no-untyped-def]
        return inbound.handle(ctx, player_mail(address, order_block(game_id, seat_of[address], secrets[address], lines)))

    piece, words, placing = OWN[key]
    # ORDINI: the scenario's own set-up, in the player's language.
    assert send(ANNA, ["ORDINI"]).status == "command"
    template = text_of(outbox(ctx, to=ANNA, kind="reply")[-1])
    assert f"Scenario {key.capitalize()}" in template
    # The Head restricted by the scenario: refused, naming the rule.
    assert send(BEPPE, ["HEAD LC" if key == "sociale" else "HEAD AUTOP"]).status == "refused"
    assert "the Head may be formed only by" in text_of(outbox(ctx, to=BEPPE, kind="reply")[-1])
    if key == "internazionalista":  # the power places the motorcade; the team's second player the Head
        assert send(PIETRO, [placing]).status == "orders"
        assert send(BEPPE, ["HEAD ML"]).status == "orders"
    elif key == "antifascista":  # the corteo places a dissident in the case popolari; the power the defaults
        assert send(ANNA, ["TESTA LC", placing]).status == "orders"
        assert send(PIETRO, ["PASS"]).status == "orders"
    elif key == "antirepressivo":  # the accused are on trial from the start
        assert send(ANNA, ["TESTA GRUPPETTI"]).status == "orders"
        assert send(PIETRO, ["PASS"]).status == "orders"
    else:  # D Sociale: a unit on the map's edge, the secret place written; the power all on the map
        assert send(ANNA, ["TESTA AUTOP", placing, SECRET_PLACE]).status == "orders"
        assert send(PIETRO, ["PASS"]).status == "orders"
    with ctx.session() as session:
        state = store.state_of(store.get_game(session, game_id))
    assert state.scenario == key and state.hand == 1
    assert state.head_component == {"internazionalista": "ML", "antifascista": "LC", "sociale": "AUTOP"}.get(
        key, "GRUPPETTI")
    if key == "sociale":
        assert len(state.secret) == 12 and all(u.loc != "reserve" for u in state.units)
    where = {**{u.id: u.loc for u in state.units}, **{m.id: m.loc for m in state.mobiles}}
    assert where[piece] == placing.split()[-1]

    pick = chooser(f"corteo-{key}")
    for number in range(90):
        shown = games.show_game(ctx, game_id)
        if shown["status"] == "finished":
            break
        (seat,) = shown["awaiting"]
        with ctx.session() as session:
            state = store.state_of(store.get_game(session, game_id))
        text = RULES.random_orders(state, seat, pick)
        sender = PIETRO if seat == "potere" else (ANNA if number % 2 else BEPPE)
        result = send(sender, text.splitlines())
        assert result.status == "orders", (shown, text)
        clock.advance(minutes=20)
    shown = games.show_game(ctx, game_id)
    assert shown["status"] == "finished"
    with ctx.session() as session:
        state = store.state_of(store.get_game(session, game_id))
    assert state.result is not None and state.hand == 10
    assert state.result.corteo == state.points + state.scored("corteo")
    moved = [m for m in state.mobiles if m.moved]
    assert moved or key in ("antirepressivo", "sociale"), "the power moved no mobile objective by mail"
    for address, final_words, tally_words in ((ANNA, "Fine del gioco", "Punti dello scenario"),
                                              (BEPPE, "End of the game", "Scenario points"),
                                              (PIETRO, "Fine del gioco", "Punti dello scenario")):
        final = text_of(outbox(ctx, to=address, kind="report")[-1])
        assert final_words in final and tally_words in final and shown["seed"] in final
    reports = "\n".join(text_of(r) for r in outbox(ctx, to=ANNA, kind="report"))
    assert words in reports  # the mobile objectives (Sociale: the secret place), in Anna's Italian
    if key == "sociale":  # never in the power's mails, unless the Corteo formed there
        power = "\n".join(text_of(r) for r in outbox(ctx, to=PIETRO))
        assert ("C2 C3 D2" in power) == state.knows("secret-revealed")
    report = verify_data(archive.archive_data(ctx, game_id))
    assert report.ok, report.problem
