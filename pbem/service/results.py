"""How a finished game ranks its seats, and who played each seat: what standings
(`pbem.service.leagues`) and ratings (`pbem.service.ratings`) are made of.

The same functions read a game from the database and from an exported archive
(`pbem ratings verify`), so both give the same figures from the same facts.

Rules (docs/club.md, "Results"):

* A game the rules ended ranks its seats by the rules' own result: the winners first
  (tied), then the rest; a game whose final state carries points per seat (Arditi's
  score sheet) ranks the rest by those points, equal points tied.
* A draw (the rules', or every seat agreeing) ties every seat.
* A game that ended because every seat was abandoned has no ranking: it counts for nobody.
* An abandoned seat keeps its place in the ranking (it played its default orders to the end),
  and the players credited with it are its last holders: leaving a game does not escape its result.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, Mapping, Sequence

from sqlmodel import Session, col, select

from pbem.core.rules import Rules
from pbem.db.models import Game, Holder, Player
from pbem.service import store

#: The outcome of a game nobody was playing any more (`pbem.service.turns`).
ABANDONED = "abandoned"


@dataclass(frozen=True)
class SeatResult:
    """One seat's place (1 = first; equal places are ties) and the players credited with it."""

    seat: str
    rank: int
    players: tuple[str, ...]


@dataclass(frozen=True)
class GameResult:
    """A finished game as standings and ratings read it."""

    game_id: str
    kind: str
    finished_at: str  # ISO time: the order in which ratings take games
    seats: tuple[SeatResult, ...]

    def points(self, seat: str) -> float:
        """One point for each seat finished ahead of, half a point for each tied with: a
        two-seat game gives 1, ½ or 0."""
        mine = next(s.rank for s in self.seats if s.seat == seat)
        return sum(1.0 if mine < o.rank else 0.5 if mine == o.rank else 0.0 for o in self.seats if o.seat != seat)


def handle(player: Player) -> str:
    """A player's public name on the site, in archives and in ratings: never the address."""
    return f"p{player.id}"


def ranks(rules: Rules, seats: Sequence[str], outcome: Mapping[str, Any] | None, final: Any) -> dict[str, int] | None:
    """Each seat's place, by the rules above; None for a game that ranks nobody."""
    if not outcome or outcome.get("result") not in ("win", "draw"):
        return None
    if outcome["result"] == "draw":
        return {s: 1 for s in seats}
    winners = [w for w in outcome.get("winners", []) if w in seats]
    points = _points(final) if final is not None and rules.outcome(final) is not None else {}
    rest = sorted((s for s in seats if s not in winners), key=lambda s: -points.get(s, 0))
    out = {w: 1 for w in winners}
    place = len(winners) + 1
    for i, seat in enumerate(rest):
        if points and i and points.get(seat, 0) != points.get(rest[i - 1], 0):
            place = len(winners) + 1 + i
        out[seat] = place
    return out


def _points(final: Any) -> dict[str, int]:
    """Points per seat when the final state keeps a score sheet (``result.scores``)."""
    result = getattr(final, "result", None)
    scores = getattr(result, "scores", None) or ()
    return {s.seat: int(s.points) for s in scores if hasattr(s, "seat") and hasattr(s, "points")}


def seat_players(session: Session, game_id: str) -> dict[str, list[str]]:
    """The players credited with each seat: its active holders, or (a seat nobody holds any
    more) the holders who left it last."""
    out: dict[str, list[str]] = {}
    for seat_row in store.seats(session, game_id):
        rows = list(session.exec(select(Holder).where(Holder.seat_id == seat_row.id).order_by(col(Holder.id))))
        active = [h for h in rows if h.status == "active"]
        if not active and rows:
            last = max((h.left_at for h in rows if h.left_at is not None), default=None)
            active = [h for h in rows if h.left_at == last] if last is not None else rows[-1:]
        labels = []
        for h in active:
            player = session.get(Player, h.player_id)
            if player is not None:
                labels.append(handle(player))
        out[seat_row.name] = labels
    return out


def of_game(session: Session, game: Game) -> GameResult | None:
    """A finished game's result from the database; None if it ranks nobody or is not over."""
    if game.status != "finished" or game.finished_at is None:
        return None
    rules = store.rules_of(game)
    seats = [s.name for s in store.seats(session, game.id)]
    final = store.state_of(game) if game.state_json else None
    placed = ranks(rules, seats, json.loads(game.outcome_json) if game.outcome_json else None, final)
    if placed is None:
        return None
    players = seat_players(session, game.id)
    return GameResult(game.id, game.kind, game.finished_at.isoformat(),
                      tuple(SeatResult(s, placed[s], tuple(players.get(s, []))) for s in seats))
