"""Block Mania, a whole three-player game by order mail on a real database, through the Judges'
Final Phase to the ranking (rulebook 3, 4, 11, 12): the set-up draw deals the blocks and the cards at
creation; each player places his Blockers in turn (3); each player's turn mails him alone for
orders; players who asked (HAZARDS ASK) get a decision phase when a Blocker they could strike with a
Hazard card has moved (11.iii): one missed (its short deadline passes, no card is played), one
answered by mail; another seat's mail is refused with the reason; a move of another player's Blocker
is refused naming its line; a missed deadline plays the documented defaults; the Judges come when the Mania deck runs out
(12.i) and every Final-Phase turn plays a Justice card (12.ii); the game ends with the defeat points
and the ranking, lowest first (12.iii), mailed with the dice seed; the archive verifies.

Hidden information (11.i): no mail to a player ever carries another player's hand - neither in the
JSON view attached to the report nor in its text (the names of the cards another player drew, the
hand dealt to him), nor the dice of the shuffles that would rebuild the deck and the piles (listed,
their values sealed until the seed is revealed) - while each player's own report lists his cards.
On SQLite only (sqlite_only): test_corteo_game.py plays a whole game on PostgreSQL."""

from __future__ import annotations

import json
import re

from pbem.core.i18n import msg
from pbem.games.blockmania import RULES
from pbem.games.blockmania.state import State
from pbem.service import archive, games, inbound, store, turns
from pbem.service.verify import verify_data
from tests.service.conftest import sqlite_only
from tests.service.helpers import files_of, outbox, text_of
from tests.support.chance import chooser
from tests.support.players import attachments, body_text, order_block, parse, player_mail, secret_from_welcome

ADDRESSES = {"red": "rosa@example.org", "blue": "bill@example.org", "green": "gwen@example.org"}
LANGS = {"red": "it", "blue": "en", "green": "en"}


def _state(ctx, game_id) -> State:  # type: ignore[no-untyped-def]
    with ctx.session() as session:
        state = store.state_of(store.get_game(session, game_id))
    assert isinstance(state, State)
    return state


def _secret_lines(state: State, out: dict[str, set[str]]) -> None:
    """By seat, the texts only that seat may read: the cards it was dealt and drew (11.i)."""
    for log in state.log:
        for note in log.notes:
            if note.to is not None and note.key in ("note-card-drawn-name", "note-card-hand"):
                for seat in note.to:
                    for lang in ("en", "it"):
                        out.setdefault(seat, set()).add(RULES.catalog.text(msg(note.key, **dict(note.args)), lang))


def _lure(state: State) -> list[str] | None:
    """A Command sheet moving one of the active player's Blockers through a square where another seat's
    Hazard card may strike it (11.iii), so that a seat with HAZARDS ASK is asked; None if there is none."""
    from pbem.games.blockmania import deck, movement
    from pbem.games.blockmania.board import Board

    active = state.active_seat.name
    kinds = {deck.face(Board(state), c).square for s in state.seats if s.name != active for c in s.hand
             if deck.face(Board(state), c).kind.key == "hazard"}
    for bid in sorted(b.id for b in state.blockers if b.owner == active and ":" in b.loc):
        board = Board(state)
        if movement.check_activate(board, bid) is not None:
            continue
        movement.activate(board, bid)
        for path in movement.reachable(board, bid).values():
            if any(deck.square_is(board, step.to, kind) for step in path for kind in kinds if kind):
                return ["MOVE " + bid + " " + " ".join(str(step.to) for step in path)]
    return None


def _views(parsed) -> list[dict]:  # type: ignore[no-untyped-def]
    """The JSON views attached to a parsed mail."""
    return [json.loads(data) for name, data in attachments(parsed).items() if name.endswith(".json")]


@sqlite_only
def test_a_whole_three_player_game_by_mail(ctx, clock):  # type: ignore[no-untyped-def]
    game_id = games.create(ctx, "blockmania", "Mega-City One", [games.SeatSpec(s, a, LANGS[s])
                                                                 for s, a in ADDRESSES.items()])
    assert game_id.startswith("b")
    secrets = {s: secret_from_welcome(text_of(outbox(ctx, to=a, kind="welcome")[0])) for s, a in ADDRESSES.items()}

    def send(seat: str, lines: list[str]):  # type: ignore[no-untyped-def]
        return inbound.handle(ctx, player_mail(ADDRESSES[seat], order_block(game_id, seat, secrets[seat], lines)))

    # 3: the set-up draw was made at creation; the first player in the order rolled places first.
    state = _state(ctx, game_id)
    shown = games.show_game(ctx, game_id)
    first = state.seats[0].name
    assert shown["phase"] == "setup" and shown["awaiting"] == [first]
    assert len({s.block for s in state.seats}) == 3 and all(len(s.hand) == 3 for s in state.seats)
    assert len(state.set_aside) == 12  # 3 players: 12 cards set aside for the Final Phase
    other = state.seats[1].name
    assert send(other, ["PASS"]).status == "refused"  # not his turn to place
    assert f"not from {other.capitalize()}" in text_of(outbox(ctx, to=ADDRESSES[other], kind="reply")[-1])
    # HISTORY of the set-up draw: the shuffles are listed, their dice sealed (2.4, 2.5; 11.i).
    assert send("blue", ["HISTORY 0"]).status == "command"
    history = text_of(outbox(ctx, to=ADDRESSES["blue"], kind="reply")[-1])
    assert "shuffle the deck" in history and "(sealed" in history
    assert not re.search(r"(?:shuffle|mescolare) [^\n]*: d\d+ = \d", history)
    # HELP, in the player's language.
    assert send("red", ["HELP"]).status == "command"
    assert "GIUSTIZIA" in text_of(outbox(ctx, to=ADDRESSES["red"], kind="reply")[-1])

    pick = chooser("blockmania-mail")
    refused = missed = asked_template = missed_decision = answered_decision = False
    judges_turns: set[int] = set()
    stages: set[str] = set()
    secret: dict[str, set[str]] = {}
    for _ in range(400):
        shown = games.show_game(ctx, game_id)
        if shown["status"] == "finished":
            break
        state = _state(ctx, game_id)
        _secret_lines(state, secret)
        stages.add(state.stage)
        if state.final and state.stage == "command":
            judges_turns.add(state.turn)
        awaiting = list(RULES.phase(state).awaiting)
        assert shown["awaiting"] == awaiting
        if state.stage == "command" and not refused and state.turn >= 2:
            refused = True
            seat = awaiting[0]
            theirs = sorted(b.id for b in state.blockers if b.owner != seat and ":" in b.loc)
            # 5.iii: only one's own Blockers are activated: refused, naming line 4 of the block.
            bad = send(seat, ["PASS", f"MOVE {theirs[0]} E5"])
            assert bad.status == "refused", text_of(outbox(ctx, to=ADDRESSES[seat], kind="reply")[-1])
            reply = text_of(outbox(ctx, to=ADDRESSES[seat], kind="reply")[-1])
            assert ("line 4" in reply or "riga 4" in reply) and theirs[0] in reply, reply
        if state.stage == "command" and state.turn == 4 and not missed:
            missed = True
            clock.advance(hours=80)  # the deadline passes: the documented default (nothing but Justice)
            assert turns.resolve_due(ctx) >= 1
            continue
        if state.stage == "hazards" and not missed_decision:
            # 11.iii: a decision phase has its own short deadline (12 h here, not the turn's 72 h);
            # missed, no card is played (the documented default) and the Command Phase goes on.
            missed_decision = True
            clock.advance(hours=13)
            assert turns.resolve_due(ctx) >= 1
            after = _state(ctx, game_id)
            assert after.stage != "hazards" or after.mover != state.mover
            assert sorted(after.seat(awaiting[0]).hand) == sorted(state.seat(awaiting[0]).hand)
            continue
        if state.stage == "hazards" and missed_decision and not answered_decision:
            # the next one is answered by mail: a Hazard card at the Blocker that moved (11.iii)
            seat = awaiting[0]
            play = next(f"PLAY {c}" for c in state.seat(seat).hand if RULES.parse_orders(state, seat, f"PLAY {c}").ok)
            assert send(seat, [play]).status == "orders"
            answered_decision = True
            after = _state(ctx, game_id)
            assert len(after.seat(seat).hand) == len(state.seat(seat).hand) - 1
            answer = [p for p in after.log if p.phase == "hazards"][-1]
            assert {"note-hazard-attack", "note-hazard-stop"} & {n.key for n in answer.notes}
            continue
        lure = _lure(state) if state.stage == "command" and not answered_decision and not state.final else None
        for seat in awaiting:
            text = "\n".join(lure) if lure else RULES.random_orders(state, seat, pick)
            if state.stage == "setup":  # standing instructions in the set-up sheet: asked for decisions
                text += "\nHAZARDS ASK" + ("\nDEFENSIVE FIRE ASK" if seat == first else "")
            assert send(seat, text.splitlines()).status == "orders", (state.stage, seat, text)
        clock.advance(minutes=20)
        if not asked_template and state.stage == "combat":
            # Only the seat now awaited gets the template of the next phase.
            shown = games.show_game(ctx, game_id)
            for seat, address in ADDRESSES.items():
                body = text_of(outbox(ctx, to=address, kind="report")[-1])
                asked = "Your orders" in body or "I tuoi ordini" in body
                assert asked == (seat in shown["awaiting"]), (seat, shown["phase"])
            asked_template = True

    shown = games.show_game(ctx, game_id)
    assert shown["status"] == "finished" and refused and missed and asked_template
    assert {"setup", "command", "combat", "hazards"} <= stages and missed_decision and answered_decision
    state = _state(ctx, game_id)
    assert state.final and judges_turns, "the Judges came (12.i) and the Final Phase was played"
    assert state.result is not None
    points = dict(state.result.defeat)
    assert list(state.result.ranking) == sorted(points, key=lambda s: (points[s], [x.name for x in state.seats].index(s)))
    outcome = shown["outcome"]
    assert outcome["reason"] == "defeat-points" and outcome["result"] in ("win", "draw")
    assert set(outcome["winners"]) <= set(ADDRESSES)
    for seat, words in (("red", "Vince:"), ("blue", "The winner:"), ("green", "The winner:")):
        final = outbox(ctx, to=ADDRESSES[seat], kind="report")[-1]
        text = text_of(final)
        assert shown["seed"] in text and (words in text or outcome["result"] == "draw")
        first = RULES.catalog.text(msg(f"seat-{state.result.ranking[0]}"), LANGS[seat])  # by its name: Blu, Blue
        assert f"1. {first} (" in text  # the ranking, lowest defeat points first
        assert any(n.endswith(".png") and d.startswith(b"\x89PNG") for n, d in files_of(final).items())

    # 11.i: no mail carries another seat's hand or the names of the cards it drew.
    _secret_lines(state, secret)
    for seat, address in ADDRESSES.items():
        others = {line for s, lines in secret.items() if s != seat for line in lines} - secret.get(seat, set())
        assert others
        mails = outbox(ctx, to=address)
        assert len(mails) > 40
        own_hand_seen = sealed_seen = False
        for mail in mails:
            parsed = parse(mail.raw)  # once for its text and its views (text_of and files_of parse it each)
            body = body_text(parsed)
            if shown["seed"] not in body:  # before the seed is revealed, no shuffle shows its dice (2.4, 2.5)
                # a shuffle's purpose reads "mescolare ..." in Italian mail (issue 19.5)
                assert not re.search(r"(?:shuffle|mescolare) [^\n]*: d\d+ = \d", body), mail.subject
                sealed_seen = sealed_seen or bool(re.search(r"(?:shuffle|mescolare) [^\n]*: d\d+ = \((sealed|sigillato)",
                                                            body))
            for line in others:
                assert line not in body, f"{address} reads another seat's secret: {line!r} in {mail.subject}"
            for view in _views(parsed):
                for entry in view.get("seats", []):
                    if entry["name"] != seat:
                        assert not {"hand", "ready", "standing"} & set(entry), (address, entry["name"])
                    elif "hand" in entry:
                        own_hand_seen = True
        assert own_hand_seen and sealed_seen
    report = verify_data(archive.archive_data(ctx, game_id))
    assert report.ok, report.problem
    assert report.rolls > 100
