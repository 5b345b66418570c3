"""What a seat (or a spectator) may see of a Block Mania game: plain JSON data, the one redaction point.

Public (everyone, spectators included): the ring of blocks (1.ii, 3), every Blocker on the map with its
type, numbers and the counters it carries, the counters lying in squares, the squares' damage (9, 10),
the fallen blocks (10.iii), each seat's hand size, pile size, dead and Justice-removed Blockers, the
deck, set-aside and discard counts, the Command Points of the active seat (5), the defeat points so far
(12.iii) and the result.

Secret: a seat's hand (its card numbers and names are in the view of that seat only; a spectator sees
no hand at all), the order of the piles, the deck and the pools (never in any view), and the notes
addressed to some seats (``Note.to``: a card drawn) - a viewer reads only the notes for everyone and
those naming its seat.  The renderer and the report read nothing else.
"""

from __future__ import annotations

from typing import Any

from pbem.core.rules import View
from pbem.games.blockmania.board import Board, blocks, parse_loc
from pbem.games.blockmania.cards import DECK
from pbem.games.blockmania.fire import defeat_points
from pbem.games.blockmania.roster import ROSTER
from pbem.games.blockmania.state import DEAD, JUSTICE, READY, Blocker, Note, Standing, State


def _card(number: int) -> dict[str, Any]:
    try:
        card = DECK.card(number)
    except KeyError:
        return {"number": number, "mania": None, "kind": None, "justice": None}
    return {"number": number, "mania": card.mania.name, "kind": card.mania.kind.key, "justice": card.justice.name}


def _blocker(b: Blocker, counter_types: dict[str, str]) -> dict[str, Any]:
    try:
        t = ROSTER.blocker(b.type)
        numbers: dict[str, Any] = {"name": t.name, "cost": t.cost, "strength": t.strength, "move": t.move}
    except KeyError:
        numbers = {"name": b.type, "cost": None, "strength": None, "move": None}
    return {"id": b.id, "type": b.type, **numbers, "owner": b.owner, "loc": b.loc, "face_down": b.face_down,
            "activated": b.activated, "set_up": b.set_up, "locked": b.locked, "symbols": list(b.symbols),
            "carried": [counter_types.get(c, "?") for c in b.carried], "carried_ids": list(b.carried)}


def _standing(state: State, seat: str) -> dict[str, Any]:
    """A seat's own standing instructions (the kept cards name cards of its hand: its eyes only)."""
    names = [s.name for s in state.seats]
    i = names.index(seat)
    st = state.standing[i] if i < len(state.standing) else Standing()
    return {"defensive_fire": st.defensive_fire, "intercept_lifts": st.intercept_lifts,
            "keep": [_card(n) for n in st.keep], "discard": _card(st.discard) if st.discard else None}


def _visible(note: Note, viewer: str | None) -> bool:
    return note.to is None or (viewer is not None and viewer in note.to)


def _defeat(state: State) -> dict[str, int]:
    """12.iii through ``fire.defeat_points``; a state whose blocks are not a ring (no seats) scores 0."""
    try:
        return defeat_points(Board(state))
    except (KeyError, ValueError):
        return {s.name: sum(1 for b in state.blockers if b.owner == s.name and b.loc == DEAD) for s in state.seats}


def build_view(state: State, viewer: str | None) -> View:
    """The view of ``viewer`` (a seat name) or of a spectator (None)."""
    data = blocks()
    names = {b.id: b.name for b in data.blocks}
    counter_types = {c.id: c.type for c in state.counters}
    defeat = _defeat(state)
    seats = []
    for s in state.seats:
        own = [b for b in state.blockers if b.owner == s.name]
        entry: dict[str, Any] = {
            "name": s.name, "block": s.block, "block_name": names.get(s.block, s.block),
            "hand_size": len(s.hand), "pile_size": len(s.pile),
            "on_map": sum(1 for b in own if parse_loc(b.loc) is not None),
            "dead": sum(1 for b in own if b.loc == DEAD), "justice": sum(1 for b in own if b.loc == JUSTICE),
            "defeat": defeat.get(s.name, 0), "fallen": s.block in state.fallen,
        }
        if viewer is not None and viewer == s.name:
            entry["hand"] = [_card(n) for n in s.hand]
            entry["ready"] = [_blocker(b, counter_types) for b in own if b.loc == READY]
            entry["standing"] = _standing(state, s.name)
        seats.append(entry)
    on_map = [_blocker(b, counter_types) for b in state.blockers if parse_loc(b.loc) is not None]
    lying = [{"id": c.id, "type": c.type, "loc": c.loc} for c in state.counters if parse_loc(c.loc) is not None]
    squares = [{"loc": q.loc, "damage": q.damage, "collapsed": q.collapsed, "fires": q.fires, "looted": q.looted,
                "scrawled": q.scrawled, "transit": q.transit} for q in state.squares]
    log = [{"turn": p.turn, "seat": p.seat, "phase": p.phase,
            "notes": [{"key": n.key, "args": dict(n.args)} for n in p.notes if _visible(n, viewer)]}
           for p in state.log]
    result = None
    if state.result is not None:
        result = {"defeat": {seat: points for seat, points in state.result.defeat},
                  "ranking": list(state.result.ranking)}
    active = state.seats[state.active].name if 0 <= state.active < len(state.seats) else None
    return {
        "game": "blockmania",
        "viewer": viewer,
        "turn": state.turn,
        "active": active,
        "stage": state.stage,
        "command_points": state.command_points,
        "ring": [s.block for s in state.seats],
        "seats": seats,
        "blockers": on_map,
        "counters": lying,
        "squares": squares,
        "fallen": list(state.fallen),
        "judges": list(state.judges),
        "deck": len(state.deck),
        "set_aside": len(state.set_aside),
        "discards": len(state.discards),
        "final": state.final,
        "defeat": defeat,
        "log": log,
        "result": result,
        "moving": {"blocker": state.moving, "mp": state.mp} if state.moving else None,
    }


__all__ = ["build_view"]
