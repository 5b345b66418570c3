"""Error replies (issue 19.3): a refusal counts its errors in proper plurals (Babel's plural
rules, both languages: "1 error", "2 errors", "1 errore", "2 errori", never "error(s)" or
"errore/i"), lists the warnings apart, labelled and not counted; names lines as "line 4 of
your orders" and says they count from the GAME line; a wrong secret of a player in several
games says that each game has its own secret."""

from __future__ import annotations

import re

from pbem.core import registry
from pbem.service import games, inbound
from pbem.service.games import SeatSpec
from pbem.service.plurals import category, tn
from tests.service.helpers import outbox, text_of
from tests.support.players import order_block, player_mail, secret_from_welcome

NORA, SANDRO = "nora@example.org", "sandro@example.org"
NORTH = ["INFANTRY A1 A2 A3 A4 A5 A6 A7 A8 A9", "ARTILLERY A13", "HORSE-ARTILLERY A14", "CAVALRY I8 J16 A10 A11",
         "HORSE-RELAY J8", "RELAY J15"]
SOUTH = ["FANTERIA O12 O13 O14 O15 P12 P13 P14 R10 R21", "CAVALLERIA P15 Q12 Q13 Q14", "ARTIGLIERIA Q15",
         "ARTIGLIERIA-A-CAVALLO R12", "STAFFETTA R13", "STAFFETTA-A-CAVALLO R14"]


def _send(ctx, address, game_id, seat, secret, lines):  # type: ignore[no-untyped-def]
    return inbound.handle(ctx, player_mail(address, order_block(game_id, seat, secret, lines)))


def _started(ctx):  # type: ignore[no-untyped-def]
    """A Kriegspiel past its sealed deployment: (game, secrets by seat, the seat to move)."""
    game_id = games.create(ctx, "kriegspiel", "Errors", [SeatSpec("north", NORA), SeatSpec("south", SANDRO, "it")])
    secrets = {s: secret_from_welcome(text_of(outbox(ctx, to=a, kind="welcome")[0]))
               for s, a in (("north", NORA), ("south", SANDRO))}
    assert _send(ctx, NORA, game_id, "north", secrets["north"], NORTH).status == "orders"
    assert _send(ctx, SANDRO, game_id, "south", secrets["south"], SOUTH).status == "orders"
    (mover,) = games.show_game(ctx, game_id)["awaiting"]
    return game_id, secrets, mover


def _items(text: str, head: str) -> list[str]:
    """The ``line …`` items listed under ``head`` (up to the next blank line)."""
    block = text.split(head, 1)[1].split("\n\n", 1)[0]
    return [x for x in block.splitlines() if re.match(r"^  \S", x)]


def test_warnings_are_labelled_and_not_counted_as_errors(ctx, clock):  # type: ignore[no-untyped-def]
    game_id, secrets, mover = _started(ctx)
    address = NORA if mover == "north" else SANDRO
    # PASS twice is a warning (once is enough); PASS beside a move is an error; so is a move
    # onto one's own unit.
    own = "A1 A2" if mover == "north" else "O12 O13"
    lines = ["PASS", "PASS", f"MOVE {own}"]
    rules = registry.get("kriegspiel")
    with ctx.session() as s:
        from pbem.service import store

        sheet = rules.parse_orders(store.state_of(store.get_game(s, game_id)), mover, "\n\n" + "\n".join(lines))
    errors = [d for d in sheet.diagnostics if d.is_error]
    warnings = [d for d in sheet.diagnostics if not d.is_error]
    assert errors and warnings  # the case of the issue: both kinds at once
    assert _send(ctx, address, game_id, mover, secrets[mover], lines).status == "refused"
    reply = text_of(outbox(ctx, to=address, kind="reply")[-1]).replace("\r\n", "\n")
    if address == NORA:
        head = f"NOT accepted: {len(errors)} error{'s' if len(errors) != 1 else ''}. Nothing was changed."
        errors_head = "The error:" if len(errors) == 1 else f"The {len(errors)} errors:"
        warn_head = "And a warning (it alone would not have stopped your orders):"
        assert "(Lines are counted from the GAME line of your order block, which is line 1.)" in reply
        assert "line 3 of your orders: PASS" in reply and "line 4 of your orders: PASS" in reply
    else:
        head = f"NON sono stati accettati: {len(errors)} error{'i' if len(errors) != 1 else 'e'}. Nulla è cambiato."
        errors_head = "L'errore:" if len(errors) == 1 else f"I {len(errors)} errori:"
        warn_head = "E un'avvertenza (da sola non avrebbe fermato i tuoi ordini):"
        assert "riga 3 dei tuoi ordini: PASS" in reply
    assert head in reply, reply
    assert "(s)" not in reply and "/i " not in reply
    assert len(_items(reply, errors_head)) == len(errors)
    listed_warnings = _items(reply, warn_head)
    assert len(listed_warnings) == len(warnings) == 1
    assert "line 4 of your orders: PASS" in listed_warnings[0] or "riga 4 dei tuoi ordini: PASS" in listed_warnings[0]
    assert reply.index(errors_head) < reply.index(warn_head)


def test_plural_forms_in_both_languages() -> None:
    assert [category(n, "en") for n in (0, 1, 2)] == ["other", "one", "other"]
    assert [category(n, "it") for n in (0, 1, 2)] == ["other", "one", "other"]
    args = {"game": "k1", "turn": 3, "seat": "north"}
    assert "1 error." in tn("reply.rejected", 1, "en", **args)
    assert "2 errors." in tn("reply.rejected", 2, "en", **args)
    assert "1 errore." in tn("reply.rejected", 1, "it", **args)
    assert "5 errori." in tn("reply.rejected", 5, "it", **args)
    assert tn("reply.warnings_too", 1, "it") != tn("reply.warnings_too", 2, "it")
    assert "3 avvertenze" in tn("reply.warnings_too", 3, "it")


def test_a_wrong_secret_of_a_player_in_several_games_says_each_game_has_its_own(ctx, clock):  # type: ignore[no-untyped-def]
    first = games.create(ctx, "duel", "One", [SeatSpec("red", "red@example.org"), SeatSpec("blue", "b1@example.org")])
    second = games.create(ctx, "duel", "Two", [SeatSpec("red", "red@example.org", "it"),
                                                SeatSpec("blue", "b2@example.org")])
    third = games.create(ctx, "duel", "Three", [SeatSpec("red", "solo@example.org"),
                                                 SeatSpec("blue", "b3@example.org")])
    welcomes = outbox(ctx, to="red@example.org", kind="welcome")
    secret_one = secret_from_welcome(text_of(welcomes[0]))
    # The secret of game one, sent for game two: refused, and told why it may have happened.
    assert _send(ctx, "red@example.org", second, "red", secret_one, ["GIOCA 1"]).status == "refused"
    notice = text_of(outbox(ctx, to="red@example.org", kind="refusal")[-1])
    assert "segreto sbagliato" in notice
    assert f"Giochi 2 partite su questo server, e ogni partita (ogni posto) ha un segreto suo" in notice
    assert f"benvenuto di {second}, posto red" in notice
    # A player of one game only is not told about other games.
    assert _send(ctx, "solo@example.org", third, "red", secret_one, ["PLAY 1"]).status == "refused"
    solo = text_of(outbox(ctx, to="solo@example.org", kind="refusal")[-1])
    assert "wrong or missing secret" in solo and "own secret" not in solo and first not in solo
