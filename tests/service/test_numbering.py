"""One numbering (issue 19.2): a turn N is the phase whose orders carry ``TURN N``; the
report of it says N in its subject and its body, names whose orders it resolved, and says
the next turn's number as the body, the map (the JSON view) and HISTORY do. Arditi's
reports of one round each say whose move they report."""

from __future__ import annotations

import json
import re

from pbem.service import games, inbound
from pbem.service.games import SeatSpec
from tests.service.helpers import files_of, outbox, text_of
from tests.support.players import order_block, player_mail, secret_from_welcome

NORA, SANDRO = "nora@example.org", "sandro@example.org"
NORTH = ["INFANTRY A1 A2 A3 A4 A5 A6 A7 A8 A9", "ARTILLERY A13", "HORSE-ARTILLERY A14", "CAVALRY I8 J16 A10 A11",
         "HORSE-RELAY J8", "RELAY J15"]
SOUTH = ["FANTERIA O12 O13 O14 O15 P12 P13 P14 R10 R21", "CAVALLERIA P15 Q12 Q13 Q14", "ARTIGLIERIA Q15",
         "ARTIGLIERIA-A-CAVALLO R12", "STAFFETTA R13", "STAFFETTA-A-CAVALLO R14"]
SUBJECT = re.compile(r"^\[pbem\] (\w+) turn (\d+) — report: (.+) played; next: turn (\d+), (.+)$")


def _kriegspiel(ctx):  # type: ignore[no-untyped-def]
    game_id = games.create(ctx, "kriegspiel", "Numbers", [SeatSpec("north", NORA), SeatSpec("south", SANDRO, "it")])
    secrets = {a: secret_from_welcome(text_of(outbox(ctx, to=a, kind="welcome")[0])) for a in (NORA, SANDRO)}
    return game_id, secrets


def _send(ctx, address, game_id, seat, secret, lines, turn=None):  # type: ignore[no-untyped-def]
    return inbound.handle(ctx, player_mail(address, order_block(game_id, seat, secret, lines, turn)))


def test_subject_body_map_and_history_say_the_same_turn(ctx, clock):  # type: ignore[no-untyped-def]
    game_id, secrets = _kriegspiel(ctx)
    assert _send(ctx, NORA, game_id, "north", secrets[NORA], NORTH, turn=0).status == "orders"
    assert _send(ctx, SANDRO, game_id, "south", secrets[SANDRO], SOUTH, turn=0).status == "orders"
    report = outbox(ctx, to=NORA, kind="report")[-1]
    found = SUBJECT.match(report.subject)
    assert found is not None, report.subject
    assert found.group(1) == game_id and found.group(2) == "0"  # the deployment: TURN 0 orders
    assert found.group(3) == "North and South" and found.group(4) == "1"
    body = text_of(report)
    assert "Turn 0 is resolved: the orders of North and South." in body
    first = games.show_game(ctx, game_id)["awaiting"][0]
    mover = {"north": "North", "south": "South"}[first]
    assert found.group(5) == f"{mover} to move"
    assert "Turn 1" in body  # the engine's own title of the position shown
    assert f"Next: turn 1 ({mover} to move)" in body
    view = json.loads(files_of(report)[f"{game_id}-turn-0-north.json"])
    assert view["turn"] == 1  # the position the report shows: the turn the subject names as next
    assert f"{game_id}-turn-0-north.png" in body and f"{game_id}-turn-0-north.json" in body

    # Italian: the same numbers, and the words of the language.
    rapporto = outbox(ctx, to=SANDRO, kind="report")[-1]
    assert rapporto.subject.startswith(f"[pbem] {game_id} turno 0 — rapporto: hanno giocato ")
    assert "prossimo: turno 1, muove " in rapporto.subject
    assert "Il turno 0 è risolto" in text_of(rapporto)

    # The first move (Kriegspiel numbers every move): one seat played, the subject says which.
    address, seat = (NORA, "north") if first == "north" else (SANDRO, "south")
    assert _send(ctx, address, game_id, seat, secrets[address], ["PASS"], turn=1).status == "orders"
    after = outbox(ctx, to=NORA, kind="report")[-1]
    found = SUBJECT.match(after.subject)
    assert found is not None and found.group(2) == "1" and found.group(3) == mover and found.group(4) == "2"
    assert found.group(5) != f"{mover} to move"  # the other side moves next

    # MAP says what it attaches, as the report does.
    _send(ctx, NORA, game_id, "north", secrets[NORA], ["MAP"])
    shown = outbox(ctx, to=NORA, kind="reply")[-1]
    assert set(files_of(shown)) == {f"{game_id}-map.png", f"{game_id}-map.json"}
    assert f"{game_id}-map.json, the same view as data" in text_of(shown)

    # HISTORY 0 is the deployment the turn-0 report resolved; HISTORY 1 the move of turn 1.
    _send(ctx, NORA, game_id, "north", secrets[NORA], ["HISTORY 0"])
    history = text_of(outbox(ctx, to=NORA, kind="reply")[-1])
    assert "Turn 0 (sealed deployment)" in history and "INFANTRY A1" in history
    _send(ctx, NORA, game_id, "north", secrets[NORA], ["HISTORY 1"])
    history = text_of(outbox(ctx, to=NORA, kind="reply")[-1])
    assert f"Turn 1 ({mover} to move)" in history and "PASS" in history and "INFANTRY A1" not in history


def test_arditi_reports_of_one_round_say_whose_move_each_reports(ctx, clock):  # type: ignore[no-untyped-def]
    seats = ("red", "blue", "green")
    addresses = {s: f"{s}@example.org" for s in seats}
    game_id = games.create(ctx, "arditi", "Round", [SeatSpec(s, a) for s, a in addresses.items()],
                           options={"rounds": "3"})
    secrets = {s: secret_from_welcome(text_of(outbox(ctx, to=a, kind="welcome")[0])) for s, a in addresses.items()}
    movers: list[str] = []
    for _ in range(3):
        (seat,) = games.show_game(ctx, game_id)["awaiting"]
        movers.append(seat)
        result = _send(ctx, addresses[seat], game_id, seat, secrets[seat], ["AUTO"])
        assert result.status == "orders", result
    subjects = [r.subject for r in outbox(ctx, to=addresses["red"], kind="report")][-3:]
    assert len(set(subjects)) == 3, subjects  # three reports, three different subjects
    for mover, subject in zip(movers, subjects):
        assert f"— report: {mover.capitalize()} played;" in subject or f"— report: {mover} played;" in subject, subject
    # the three reports' attachments have three names: saved side by side, none overwrites another
    names = [sorted(n for n in files_of(r) if n.endswith(".png"))
             for r in outbox(ctx, to=addresses["red"], kind="report")][-3:]
    assert len({tuple(n) for n in names}) == 3, names
    assert names[0] == [f"{game_id}-turn-1-red.png"] and names[1] == [f"{game_id}-turn-1-step-2-red.png"], names
    body = text_of(outbox(ctx, to=addresses["red"], kind="report")[-2])
    assert f"{game_id}-turn-1-step-2-red.json" in body  # the report names what it attaches
    # the subject says the game's own word for a turn, as the report and the map do
    assert all(f"[pbem] {game_id} round 1 — " in s for s in subjects), subjects


def test_replies_name_the_seat_in_the_readers_language(ctx, clock):  # type: ignore[no-untyped-def]
    """Issue 19.5: the acceptance and the refusal say 'Sud', not the seat's id, to an Italian player."""
    game_id, secrets = _kriegspiel(ctx)
    assert _send(ctx, SANDRO, game_id, "south", secrets[SANDRO], SOUTH, turn=0).status == "orders"
    accepted = text_of(outbox(ctx, to=SANDRO, kind="reply")[-1])
    assert f"Gli ordini di Sud (south) per {game_id} turno 0" in accepted, accepted
    assert _send(ctx, SANDRO, game_id, "south", secrets[SANDRO], ["FANTERIA Z99"], turn=0).status == "refused"
    refused = text_of(outbox(ctx, to=SANDRO, kind="reply")[-1])
    assert "Sud (south)" in refused and "di south" not in refused, refused
