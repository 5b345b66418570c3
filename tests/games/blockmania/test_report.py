"""The mail of Block Mania: the turn report (report.describe), the rules summary and the order template
(texts.help_text, texts.template_text).

A hand is secret (3, 11.i: "l'identità delle carte non deve essere rivelata agli avversari"): the report
of a seat names its own cards and never another's.  The notes of the rule modules reach the players
rendered in their language; the defeat points rank the players, the fewest first (12.iii).  The template
offers the seat's Blockers and orders of the phase (4) as comments above a sheet valid as it stands.
"""

from __future__ import annotations

import tomllib
from dataclasses import replace
from importlib import resources
from typing import Any

import pytest

from pbem.core.i18n import Catalog
from pbem.games.blockmania.cards import DECK
from pbem.games.blockmania.report import describe, recent
from pbem.games.blockmania.state import Note, PhaseLog, Result, Standing, State
from pbem.games.blockmania.texts import KEYWORDS, help_text, template_text
from pbem.games.blockmania.view import build_view
from tests.games.blockmania.helpers import position

LANGS = ("en", "it")
# every keyword that may open an order line (the spec's syntax, both languages)
OPENERS = {w for lang in KEYWORDS.values() for w in lang.values()} | {"DEFENSIVE", "FUOCO"}


def catalog() -> Catalog:
    """The game's catalog as render.py builds it, with the report's texts."""
    cat = Catalog.from_package("pbem.games.blockmania.data", "texts.toml")
    for name in ("texts_combat.toml", "texts_cards.toml", "texts_report.toml"):
        cat = cat.merged(Catalog.from_package("pbem.games.blockmania.data", name))
    return cat


CAT = catalog()


def with_hands(state: State, hands: dict[str, tuple[int, ...]]) -> State:
    return replace(state, seats=tuple(replace(s, hand=hands.get(s.name, s.hand)) for s in state.seats))


def names(numbers: tuple[int, ...]) -> set[str]:
    return {n for c in numbers for n in (DECK.card(c).mania.name, DECK.card(c).justice.name)}


def order_lines(sheet: str) -> list[str]:
    return [ln for ln in sheet.splitlines() if ln.strip() and not ln.lstrip().startswith("#")]


def assert_parseable(sheet: str) -> None:
    """Every non-comment line opens with one of the spec's keywords."""
    for line in order_lines(sheet):
        assert line.split()[0].upper() in OPENERS, line


def a_game(**changes: Any) -> State:
    """Turn 2, red's Command Phase on curie, blue on keaton: red-1 (Juves) can move, red-2 is face down,
    blue-1 (Citi-Def) carries a Spit Gun one square from red-1."""
    state = position({"red-1": ("juves", "curie:D4"), "red-2": ("mob", "curie:E3"),
                      "blue-1": ("citi-def", "curie:D5")},
                     carried={"red-1": ("spit-gun",), "blue-1": ("spit-gun",)}, cp=7, turn=2)
    state = replace(state, blockers=tuple(replace(b, face_down=b.id == "red-2") for b in state.blockers))
    return replace(with_hands(state, {"red": (1, 4), "blue": (20, 30)}), **changes)


# -- hidden information (3, 11.i) -------------------------------------------------------------------


@pytest.mark.parametrize("lang", LANGS)
def test_the_report_names_the_viewers_cards_and_never_anothers(lang: str) -> None:
    """11.i: everyone knows how many cards a player holds, not which: red reads #1 and #4 by name, never blue's."""
    state = a_game()
    red = describe(CAT, build_view(state, "red"), lang)
    blue = describe(CAT, build_view(state, "blue"), lang)
    spectator = describe(CAT, build_view(state, None), lang)
    mine, theirs = names((1, 4)), names((20, 30))
    assert mine.isdisjoint(theirs)
    assert all(n in red for n in mine) and "#1 " in red and "#4 " in red
    assert not any(n in red for n in theirs)
    assert all(n in blue for n in theirs) and not any(n in blue for n in mine)
    assert not any(n in spectator for n in mine | theirs)
    counts = "cards in hand 2" if lang == "en" else "carte in mano 2"
    assert red.count(counts) == 2  # both hands' sizes are public


def test_a_note_for_one_seat_reaches_that_seat_only() -> None:
    """10.ii: the card drawn is named to its drawer; the others read that a card was drawn."""
    drawn = DECK.card(40).mania.name  # a card in nobody else's hand
    log = (PhaseLog(1, "red", "end", (Note("note-card-drawn", (("seat", "red"), ("hand", "3"), ("deck", "20"))),
                                      Note("note-card-drawn-name", (("seat", "red"), ("card", drawn)), ("red",)))),)
    state = a_game(log=log, stage="command", active=1)
    red = describe(CAT, build_view(state, "red"), "en")
    blue = describe(CAT, build_view(state, "blue"), "en")
    assert f"You draw {drawn}." in red and drawn not in blue
    assert "Red draws a card: 3 in hand, 20 left in the deck (10.ii)." in blue


# -- what happened -------------------------------------------------------------------------------------


def a_log() -> tuple[PhaseLog, ...]:
    walk = Note("note-walk", (("blocker", "red-1"), ("start", "curie:D5"), ("square", "curie:D4"), ("cost", "1")))
    shot = Note("note-combat-shot", (("target", "blue-1"), ("roll", "6"), ("total", "8"), ("result", "kill")))
    killed = Note("note-combat-killed", (("blocker", "blue-1"), ("cause", "shot"), ("square", "curie:D5")))
    return (PhaseLog(1, "red", "command", (Note("note-train", (("square", "keaton:E10"),)),)),
            PhaseLog(1, "blue", "command", (Note("note-train", (("square", "keaton:E10"),)),)),
            PhaseLog(2, "red", "command", (walk,)),
            PhaseLog(2, "red", "combat", (shot, killed)))


@pytest.mark.parametrize("lang", LANGS)
def test_the_notes_are_rendered_in_the_language_of_the_mail(lang: str) -> None:
    """7, 8.v: the log's notes read as sentences, their words (a result, a cause) translated."""
    state = a_game(log=a_log(), stage="combat")
    text = describe(CAT, build_view(state, "blue"), lang)
    assert "note-" not in text and "value-" not in text and "phase-" not in text
    if lang == "en":
        assert "red-1 moves from curie:D5 to curie:D4 (1 MP)." in text
        assert "die 6, total 8: killed." in text and "blue-1 is eliminated (shot)." in text
        assert "Combat Phase of Red, turn 2:" in text
    else:
        assert "red-1 muove da curie:D5 a curie:D4 (1 PM)." in text
        assert "dado 6, totale 8: eliminato." in text and "blue-1 è eliminato (colpito)." in text
        # seats by their Italian names (issue 19.5), their Blockers by the ids the orders use
        assert "Fase di Combattimento di Rosso, turno 2:" in text and " di red," not in text
        assert "Rosso (red), " in text and "Blu (blue), " in text
        assert "Fase Comando di Rosso, turno 2:" in text


def test_the_report_covers_one_round_of_the_ring() -> None:
    """4: the turns go round the ring; blue reads what happened since its own last Command Phase (its End
    Phase, red's whole turn), not red's turn before that; in the first round, the whole log."""
    train = (Note("note-train", (("square", "keaton:E10"),)),)
    log = tuple(PhaseLog(turn, seat, phase, train) for turn, seat, phase in
                ((1, "red", "command"), (1, "red", "combat"), (2, "blue", "command"), (2, "blue", "end"),
                 (3, "red", "command"), (3, "red", "combat")))
    view = build_view(a_game(log=log, turn=4, active=1), "blue")
    assert [(e["turn"], e["seat"], e["phase"]) for e in recent(view["log"], "blue", "command", 4)] == \
        [(2, "blue", "end"), (3, "red", "command"), (3, "red", "combat")]
    assert describe(CAT, view, "en").count("A Sky Rail train waits at keaton:E10.") == 3
    assert len(recent(view["log"], "green", "command", 4)) == 6  # green has not played yet: the whole log


def test_an_unknown_note_prints_as_its_key_and_arguments() -> None:
    state = a_game(log=(PhaseLog(2, "red", "command", (Note("note-not-written-yet", (("blocker", "red-1"),)),)),))
    assert "note-not-written-yet(blocker=red-1)" in describe(CAT, build_view(state, "red"), "it")


# -- the position -------------------------------------------------------------------------------------


@pytest.mark.parametrize("lang", LANGS)
def test_the_position_lists_blockers_by_block_and_square(lang: str) -> None:
    """1.iii, 7.ii: every Blocker on the map with Strength-Move, counters and face-down mark; the CP of
    the active seat (5.i)."""
    state = a_game()
    text = describe(CAT, build_view(state, "blue"), lang)
    assert "Marie Curie Block" in text
    assert "D4: red-1 Juves 2-5 [spit-gun-1]" in text  # counters by id: WITH, GIVE and DISCARD name them
    assert "D5: blue-1 Citi-Def 3-4 [spit-gun-2]" in text
    assert ("E3: red-2 Mob 4-3 (face down)" if lang == "en" else "E3: red-2 Mob 4-3 (capovolto)") in text
    assert ("Command Points of Red: 7." if lang == "en" else "Punti Comando di Rosso: 7.") in text


def test_the_view_additions_of_the_engine_are_shown_when_present() -> None:
    """The engine's view additions (awaiting, the Blocker moving, READY Blockers, standing instructions)
    are optional: present, they are reported to their seat."""
    state = a_game(standing=(Standing("strongest", False, (4,), 1), Standing()))
    view = build_view(state, "red")
    assert "Orders awaited" not in describe(CAT, view, "en")
    view["awaiting"] = ["red"]
    view["moving"] = {"blocker": "red-1", "mp": 3}
    me = next(s for s in view["seats"] if s["name"] == "red")
    me["ready"] = [dict(view["blockers"][0], id="red-7", loc="ready")]
    me["standing"] = {"defensive_fire": "strongest", "intercept_lifts": False,
                      "keep": [me["hand"][1]], "discard": me["hand"][0]}
    text = describe(CAT, view, "it")
    assert "Si attendono gli ordini di: Rosso." in text  # seats by the names the reader uses (issue 19.5)
    assert "red-1 sta muovendo: gli restano 3 PM." in text
    assert "red-7 Juves" in text
    assert "fuoco difensivo: il nemico più forte" in text
    assert f"carte tenute per il loro momento: #4 {DECK.card(4).mania.name}" in text


@pytest.mark.parametrize("lang", LANGS)
def test_the_ranking_closes_the_report_of_a_finished_game(lang: str) -> None:
    """12.iii: the fewest defeat points wins; the ranking goes from the lowest."""
    state = a_game(stage="over", result=Result((("red", 14), ("blue", 3)), ("blue", "red")))
    text = describe(CAT, build_view(state, "red"), lang)
    word, blue, red = ("defeat points", "Blue", "Red") if lang == "en" else ("Punti Sconfitta", "Blu", "Rosso")
    first, second = f"1. {blue} (Buster Keaton Block): {word} 3", f"2. {red} (Marie Curie Block): {word} 14"
    assert first in text and second in text and text.index(first) < text.index(second)
    assert ("The winner: Blue." if lang == "en" else "Vince: Blu.") in text  # seats by their names (issue 19.5)


# -- the template and the help -----------------------------------------------------------------------------


@pytest.mark.parametrize("lang", LANGS)
def test_the_command_template_names_the_seats_blockers_and_parses(lang: str) -> None:
    """5.iii, 7.ii: red-1 may be activated, red-2 (face down) may not; the sheet as it stands is PASS."""
    sheet = template_text(CAT, a_game(), "red", lang, ["red"])
    assert "# red-1 Juves 2-5 [spit-gun-1]" in sheet and "# red-2 Mob 4-3" in sheet
    assert "blue-1 Citi-Def" not in sheet
    assert ("face down" if lang == "en" else "capovolto") in sheet
    assert_parseable(sheet)
    assert order_lines(sheet) == [KEYWORDS[lang]["pass"]]
    play = KEYWORDS[lang]["play"]
    assert f"#   {play} 1 " in sheet and f"#   {play} 4 " in sheet  # Command cards, 11.ii


def test_a_seat_not_awaited_gets_one_comment_line() -> None:
    sheet = template_text(CAT, a_game(), "blue", "en", ["red"])
    assert sheet.count("\n") == 1 and sheet.startswith("# ") and "orders awaited from: Red)" in sheet
    assert "(si attendono gli ordini di: Rosso)" in template_text(CAT, a_game(), "blue", "it", ["red"])


def test_the_setup_template_places_the_ready_blockers() -> None:
    """3: each READY Blocker gets a default PLACE on a distinct free square of its own block."""
    state = position({"red-1": ("juves", "ready"), "red-2": ("mob", "ready"), "blue-1": ("spugs", "ready")},
                     stage="setup", turn=0)
    sheet = template_text(CAT, state, "red", "it", ["red"])
    lines = order_lines(sheet)
    assert_parseable(sheet)
    assert [ln.split()[:2] for ln in lines] == [["PIAZZA", "red-1"], ["PIAZZA", "red-2"]]
    squares = [ln.split()[2] for ln in lines]
    assert len(set(squares)) == 2 and all(":" not in s for s in squares)  # own block: bare labels


def test_the_defensive_fire_template_offers_the_nearest_shot() -> None:
    """7.i: blue-1 is one square from red-1 with a Spit Gun: the default sheet fires at it."""
    state = a_game(stage="defensive-fire")
    sheet = template_text(CAT, state, "blue", "en", ["blue"])
    assert_parseable(sheet)
    assert order_lines(sheet) == ["FIRE blue-1 AT red-1 WITH spit-gun-2"]
    assert "#   HOLD blue-1" in sheet


def test_the_combat_template_lists_shots_and_close_combats() -> None:
    """8.ii, 8.v, 8.vi: a shot red-1 can make, the close combat due; the sheet is PASS."""
    state = a_game(stage="combat")
    sheet = template_text(CAT, state, "red", "en", ["red"])
    assert "#   SHOOT red-1 AT blue-1 WITH spit-gun-1" in sheet
    assert_parseable(sheet)
    locked = position({"red-1": ("juves", "curie:D4"), "blue-1": ("spugs", "curie:D4")}, stage="combat")
    assert "#   FIGHT red-1 blue-1" in template_text(CAT, locked, "red", "en", ["red"])


def test_the_final_phase_template_opens_with_justice() -> None:
    """12.ii: one Justice card at the start of the Command Phase; no Mania card is offered."""
    sheet = template_text(CAT, a_game(final=True), "red", "it", ["red"])
    assert order_lines(sheet) == ["GIUSTIZIA 1"]
    assert "GIOCA 1" not in sheet and DECK.card(4).justice.name in sheet


@pytest.mark.parametrize("lang", LANGS)
def test_the_help_gives_the_sequence_and_every_order(lang: str) -> None:
    text = help_text(CAT, lang)
    for en, it in (("PLACE", "PIAZZA"), ("JUSTICE", "GIUSTIZIA"), ("CONTINUE", "CONTINUA"), ("HOLD", "FERMO"),
                   ("DOUSE", "SPEGNI"), ("INTERCEPT", "INTERCETTA"), ("KEEP", "TIENI"), ("DISCARD", "SCARTA")):
        assert en in text and it in text
    assert ("Defensive Fire Phase" if lang == "en" else "Fase di Fuoco Difensivo") in text
    assert "help-" not in text


@pytest.mark.parametrize("lang", LANGS)
def test_the_help_tells_the_readings_of_the_open_points(lang: str) -> None:
    """The rules summary players receive (welcome mail, HELP) states the server's readings where the
    rulebook is open: 12.iii "a causa degli altri giocatori" (own-side losses count), 9.iii "rimosso dal
    gioco" against 7.iii "nei relativi contenitori" (the counters go back to the pools), 10.iii "tutti
    gli Square di Pedway, Sky Rail e Mega Way" (those of the fallen map), 6.x the surplus counters."""
    text = help_text(CAT, lang)
    part = text[text.index("12.iii, 7.iii"):]
    for section in ("12.iii", "9.iii", "10.iii", "6.x"):
        assert section in part
    words = {"en": ("your own shots", "go back to their pools", "of its map", "those on the other maps",
                    "LOOT ... DISCARD"),
             "it": ("compresi i tuoi tiri", "tornano nei loro contenitori", "della sua mappa",
                    "quelli delle altre mappe", "SACCHEGGIA ... SCARTA")}[lang]
    for w in words:
        assert w in part, w


def test_the_report_texts_exist_in_both_languages() -> None:
    text = resources.files("pbem.games.blockmania.data").joinpath("texts_report.toml").read_text("utf-8")
    data = tomllib.loads(text)
    assert set(data["en"]) == set(data["it"])
    for stage in ("setup-draw", "setup", "command", "defensive-fire", "combat", "end", "over"):
        assert f"phase-{stage}" in data["en"]
