"""The view of Block Mania, the one redaction point: a seat sees its own hand and nobody else's, the notes
for everyone and those addressed to it (a card drawn), never the order of a pile, the deck or a pool; the
counts (cards in hand, pile, deck, set aside, discards) are public (1.iv, 3, 10.ii, 11.i). The view is
plain JSON data."""

from __future__ import annotations

import json
from dataclasses import replace

from pbem.games.blockmania.board import Board
from pbem.games.blockmania.cards import DECK
from pbem.games.blockmania.fire import defeat_points
from pbem.games.blockmania.state import (
    DEAD, JUSTICE, VERSION, Blocker, Counter, Note, PhaseLog, Result, Seat, SquareState, State,
)
from pbem.games.blockmania.view import build_view

SECRET = "note-drew-counter"


def mid_game(players: int = 4, fallen: tuple[str, ...] = ("houdini",)) -> State:
    """Turn 3, red's Command Phase: Blockers of every seat, a fight locked in keaton:E5, fires, damage, a
    collapse, a looted Bank, a scrawl, a stopped pedway, a counter lying in curie:F4, moves and a shot in the
    log, and a note only red may read (the counter it drew)."""
    names = ("red", "blue", "green", "yellow")[:players]
    blocks = ("curie", "keaton", "earhart", "houdini")[:players]
    seats = tuple(Seat(n, b, pile=tuple(f"{n}-{i}" for i in range(10, 15)), hand=(1, 7, 12) if n == "red" else (20 + i,))
                  for i, (n, b) in enumerate(zip(names, blocks)))
    blockers = [
        Blocker("red-1", "juves", "red", "curie:D6", carried=("spit-gun-1", "bat-suit-1")),
        Blocker("red-2", "mob", "red", "curie:E3", face_down=True),
        Blocker("red-3", "superhero", "red", "keaton:E5"),
        Blocker("red-4", "fatty", "red", "keaton:E5", locked=True),
        Blocker("blue-1", "crocks", "blue", "keaton:E5", locked=True),
        Blocker("blue-2", "citi-def", "blue", "keaton:F8", carried=("heavy-laser-1",)),
        Blocker("blue-3", "spugs", "blue", "curie:B6"),
        Blocker("red-9", "spugs", "red", DEAD),
        Blocker("blue-9", "spugs", "blue", JUSTICE),
        *(Blocker(f"{n}-{i}", "spugs", n, "pile") for n in names for i in range(10, 15)),
    ]
    if players > 2:
        blockers += [Blocker("green-1", "klegg", "green", "earhart:D4"),
                     Blocker("yellow-1", "jaeger", "yellow", "houdini:F9")]
    counters = (Counter("spit-gun-1", "spit-gun", "red-1"), Counter("bat-suit-1", "bat-suit", "red-1"),
                Counter("heavy-laser-1", "heavy-laser", "blue-2"), Counter("flamer-1", "flamer", "curie:F4"),
                Counter("nail-gun-1", "nail-gun", "pool:hardware"), Counter("flamer-2", "flamer", "pool:armoury"))
    squares = (SquareState("curie:E4", damage=2, fires=2), SquareState("curie:F5", collapsed=True),
               SquareState("keaton:D4", fires=3, scrawled=True), SquareState("curie:G3", looted=True, damage=1),
               SquareState("curie:B6", transit="stopped"))
    notes = (Note("note-walk", (("blocker", "red-1"), ("start", "curie:D5"), ("square", "curie:D6"), ("cost", "1"))),
             Note("note-lift", (("blocker", "blue-2"), ("start", "keaton:F3"), ("square", "keaton:F8"))),
             Note("note-combat-shoots", (("blocker", "blue-2"), ("target", "red-1"), ("weapon", "Heavy Laser"))),
             Note(SECRET, (("blocker", "red-1"), ("counter", "Bat Suit")), ("red",)),
             Note("note-fire-grows", (("square", "keaton:D4"), ("fires", "3"))))
    log = (PhaseLog(2, "blue", "command", (Note("note-train", (("square", "keaton:E10"),)),)),
           PhaseLog(3, "red", "command", notes))
    return State(VERSION, seats, turn=3, active=0, stage="command", command_points=7, blockers=tuple(blockers),
                 counters=counters, squares=squares, fallen=fallen if players > 2 else (),
                 deck=tuple(range(30, 50)), set_aside=tuple(range(50, 56)), discards=(9, 10), log=log)


def seat_of(view: dict, name: str) -> dict:
    return next(s for s in view["seats"] if s["name"] == name)


def all_keys(data: object) -> set[str]:
    if isinstance(data, dict):
        return set(data) | {k for v in data.values() for k in all_keys(v)}
    if isinstance(data, list):
        return {k for v in data for k in all_keys(v)}
    return set()


def test_a_seat_sees_its_own_hand_only():
    """3, 11.i: the hand is secret; the viewer reads its own card numbers and names, the others' sizes only."""
    view = build_view(mid_game(), "red")
    red = seat_of(view, "red")
    assert [c["number"] for c in red["hand"]] == [1, 7, 12]
    assert red["hand"][0]["mania"] == DECK.card(1).mania.name
    assert red["hand"][0]["justice"] == DECK.card(1).justice.name
    for other in ("blue", "green", "yellow"):
        assert "hand" not in seat_of(view, other)
        assert seat_of(view, other)["hand_size"] == 1
    blue_view = build_view(mid_game(), "blue")
    assert "hand" not in seat_of(blue_view, "red")
    assert [c["number"] for c in seat_of(blue_view, "blue")["hand"]] == [20 + 1]


def test_a_spectator_sees_no_hand_at_all():
    view = build_view(mid_game(), None)
    assert "hand" not in all_keys(view["seats"])
    assert view["viewer"] is None
    assert [s["hand_size"] for s in view["seats"]] == [3, 1, 1, 1]


def test_notes_addressed_to_others_are_never_shown():
    """A Note with ``to`` (a card or counter drawn) is read only by those seats; the rest of the log by all."""
    def keys(viewer: str | None) -> list[str]:
        return [n["key"] for p in build_view(mid_game(), viewer)["log"] for n in p["notes"]]

    assert SECRET in keys("red")
    for viewer in ("blue", "green", None):
        assert SECRET not in keys(viewer)
        assert "note-walk" in keys(viewer) and "note-train" in keys(viewer)
    assert "Bat Suit" not in json.dumps(build_view(mid_game(), "blue")["log"])


def test_counts_are_public_and_secret_orders_are_not():
    """3: piles, deck, set-aside cards and pools are face down: their sizes are public, their order is not."""
    state = mid_game()
    for viewer in ("red", "blue", None):
        view = build_view(state, viewer)
        assert (view["deck"], view["set_aside"], view["discards"]) == (20, 6, 2)
        assert [s["pile_size"] for s in view["seats"]] == [5, 5, 5, 5]
        text = json.dumps(view)
        assert "red-10" not in text and "blue-12" not in text  # Blockers in the piles
        assert "pool:" not in text and "nail-gun" not in text  # the pools
        assert "pile" not in {b["loc"] for b in view["blockers"]}


def test_the_map_is_public():
    """1.ii, 1.iii, 9, 10: Blockers with type, owner, square, numbers and carried counters; the squares'
    damage; counters lying in squares; dead and Justice-removed Blockers counted per seat."""
    view = build_view(mid_game(), "blue")
    red1 = next(b for b in view["blockers"] if b["id"] == "red-1")
    assert red1 == {**red1, "type": "juves", "owner": "red", "loc": "curie:D6", "face_down": False,
                    "locked": False, "strength": 2, "move": 5, "cost": 2, "carried": ["spit-gun", "bat-suit"]}
    assert next(b for b in view["blockers"] if b["id"] == "red-2")["face_down"]
    assert next(b for b in view["blockers"] if b["id"] == "blue-1")["locked"]
    assert {b["id"] for b in view["blockers"]} == {"red-1", "red-2", "red-3", "red-4", "blue-1", "blue-2",
                                                   "blue-3", "green-1", "yellow-1"}
    assert view["counters"] == [{"id": "flamer-1", "type": "flamer", "loc": "curie:F4"}]
    squares = {q["loc"]: q for q in view["squares"]}
    assert squares["curie:F5"]["collapsed"] and squares["curie:E4"]["fires"] == 2
    assert squares["curie:B6"]["transit"] == "stopped" and squares["keaton:D4"]["scrawled"]
    red, blue = seat_of(view, "red"), seat_of(view, "blue")
    assert (red["dead"], red["justice"], blue["dead"], blue["justice"]) == (1, 0, 0, 1)
    assert view["fallen"] == ["houdini"] and seat_of(view, "yellow")["fallen"]
    assert (view["turn"], view["active"], view["stage"], view["command_points"]) == (3, "red", "command", 7)
    assert view["ring"] == ["curie", "keaton", "earhart", "houdini"]


def test_defeat_points_so_far():
    """12.iii: the running defeat points are fire.defeat_points of the position."""
    state = mid_game()
    view = build_view(state, None)
    assert view["defeat"] == defeat_points(Board(state))
    assert view["defeat"]["red"] == 1 + (2 + 1) + 6 + (4 + 1)  # a loss, E4, the collapse, the looted Bank
    assert view["defeat"]["yellow"] >= 200  # 10.iii: the block fell
    assert seat_of(view, "red")["defeat"] == view["defeat"]["red"]


def test_the_view_is_plain_json():
    for viewer in ("red", "blue", None):
        view = build_view(mid_game(), viewer)
        assert json.loads(json.dumps(view)) == view
    done = replace(mid_game(2), result=Result((("red", 15), ("blue", 3)), ("blue", "red")), final=True)
    view = build_view(done, "red")
    assert view["result"] == {"defeat": {"red": 15, "blue": 3}, "ranking": ["blue", "red"]}
    assert view["final"] and json.loads(json.dumps(view)) == view
