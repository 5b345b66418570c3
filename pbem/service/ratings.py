"""Ratings per player and game kind (architecture 2.8): every finished game that ranks its
seats (`pbem.service.results`), in the order the games ended (then by game id), rated with
OpenSkill's Plackett-Luce model — two to six seats, ties, and a seat held by a team (its
players rated together). Starting rating mu 25, sigma 25/3; the list is ordered by the
conservative estimate mu − 3·sigma.

``pbem ratings verify DIR`` recomputes every rating from exported archives alone: each
archive is checked as ``pbem verify`` checks it, the finish order is taken from the replayed
final position when the rules ended the game (the archive's recorded outcome only for games
ended by agreement, concession or the game master), and the first difference from the
database's figures is named.
"""

from __future__ import annotations

import json
import logging
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterable, Mapping

from openskill.models import PlackettLuce
from sqlmodel import col, select

from pbem.core import registry
from pbem.db.models import Game
from pbem.errors import UserError, VerifyError
from pbem.service import results
from pbem.service.context import Context
from pbem.service.replay import replay
from pbem.service.verify import load, verify_data

log = logging.getLogger(__name__)

#: Two figures closer than this are the same (floating point over a long history).
TOLERANCE = 1e-9


@dataclass(frozen=True)
class Rating:
    kind: str
    player: str  # the public handle (`results.handle`)
    mu: float
    sigma: float
    games: int

    @property
    def ordinal(self) -> float:
        return self.mu - 3 * self.sigma


def compute(games: Iterable[results.GameResult]) -> dict[str, dict[str, Rating]]:
    """Ratings per kind and player from ``games`` (any order: they are sorted by their end)."""
    model = PlackettLuce()
    table: dict[str, dict[str, Any]] = {}
    counts: dict[tuple[str, str], int] = {}
    for game in sorted(games, key=lambda g: (g.finished_at, g.game_id)):
        seats = [s for s in game.seats if s.players]
        if len(seats) < 2:
            continue
        known = table.setdefault(game.kind, {})
        teams = [[known.get(p) or model.rating(name=p) for p in s.players] for s in seats]
        rated = model.rate(teams, ranks=[float(s.rank) for s in seats])
        for seat, team in zip(seats, rated):
            for player, rating in zip(seat.players, team):
                known[player] = rating
                counts[(game.kind, player)] = counts.get((game.kind, player), 0) + 1
    return {kind: {p: Rating(kind, p, float(r.mu), float(r.sigma), counts[(kind, p)]) for p, r in rows.items()}
            for kind, rows in table.items()}


def ordered(table: Mapping[str, Mapping[str, Rating]], kind: str | None = None) -> list[Rating]:
    """Best first within each kind (kinds in name order)."""
    if kind is not None and kind not in registry.kinds():
        raise UserError(f"unknown game kind {kind!r} (kinds: {', '.join(registry.kinds())})")
    out: list[Rating] = []
    for k in sorted(table):
        if kind is None or k == kind:
            out += sorted(table[k].values(), key=lambda r: (-r.ordinal, r.player))
    return out


def from_database(ctx: Context) -> list[results.GameResult]:
    with ctx.session() as session:
        rows = session.exec(select(Game).where(Game.status == "finished").order_by(col(Game.finished_at)))
        return [r for g in rows if (r := results.of_game(session, g)) is not None]


def of_database(ctx: Context) -> dict[str, dict[str, Rating]]:
    return compute(from_database(ctx))


# --- from archives ---------------------------------------------------------------------------------


def result_of_archive(data: Mapping[str, Any]) -> results.GameResult | None:
    """A verified archive's result (None: unfinished or ranking nobody)."""
    g = data["game"]
    if g.get("status") != "finished" or not g.get("finished_at"):
        return None
    if "players" not in g:
        raise VerifyError(f"archive of {g['id']} names no players per seat (exported before ratings): export it again")
    rules = registry.get(g["kind"])
    final = rules.decode_state(data["initial_state"])
    for step in replay(rules, data):
        final = step.after
    outcome = rules.outcome(final)
    recorded = g.get("outcome")
    as_recorded: dict[str, Any] | None
    if outcome is not None:
        as_recorded = {"result": outcome.result, "winners": list(outcome.winners)}
        if isinstance(recorded, dict) and {k: recorded.get(k) for k in as_recorded} != as_recorded:
            raise VerifyError(f"archive of {g['id']}: the recorded outcome is not the one its replay ends in")
    else:
        as_recorded = recorded if isinstance(recorded, dict) else None  # agreement, concession, the game master
    placed = results.ranks(rules, g["seats"], as_recorded, final)
    if placed is None:
        return None
    players = g["players"]
    return results.GameResult(g["id"], g["kind"], g["finished_at"],
                              tuple(results.SeatResult(s, placed[s], tuple(players.get(s, []))) for s in g["seats"]))


def from_archives(folder: Path) -> list[results.GameResult]:
    """Every archive under ``folder`` (a folder holding game.json, at any depth), verified."""
    if not folder.is_dir():
        raise VerifyError(f"no folder {folder}")
    out = []
    for path in sorted(folder.rglob("game.json")):
        data = load(path)
        report = verify_data(data)
        if not report.ok:
            raise VerifyError(f"{path.parent}: the archive of {report.game} does not verify: {report.problem}")
        found = result_of_archive(data)
        if found is not None:
            out.append(found)
    return out


def verify(ctx: Context, folder: Path) -> str:
    """Recompute from the archives and compare with the database; raises `VerifyError` naming
    the first difference, else returns a summary."""
    archived = {r.game_id: r for r in from_archives(folder)}
    stored = from_database(ctx)
    for game in sorted(stored, key=lambda g: (g.finished_at, g.game_id)):
        other = archived.get(game.game_id)
        if other is None:
            raise VerifyError(f"game {game.game_id} counts in the database's ratings and has no archive in {folder}")
        if other != game:
            raise VerifyError(f"game {game.game_id}: the archive gives {_describe(other)}, "
                              f"the database {_describe(game)}")
    extra = sorted(set(archived) - {g.game_id for g in stored})
    if extra:
        raise VerifyError(f"game {extra[0]}: archived as finished and ranked, but the database does not rate it")
    mine, theirs = compute(archived.values()), compute(stored)
    for rating in ordered(theirs):
        got = mine.get(rating.kind, {}).get(rating.player)
        if got is None or abs(got.mu - rating.mu) > TOLERANCE or abs(got.sigma - rating.sigma) > TOLERANCE:
            raise VerifyError(f"{rating.player} in {rating.kind}: the archives give "
                              f"{_figure(got)}, the database {_figure(rating)}")
    count = sum(len(v) for v in theirs.values())
    return f"OK: {len(stored)} games in {len(archived)} archives give the same {count} ratings as the database"


def _describe(game: results.GameResult) -> str:
    return "; ".join(f"{s.seat} ({'+'.join(s.players) or 'nobody'}) place {s.rank}" for s in game.seats) + \
        f", ended {game.finished_at}"


def _figure(rating: Rating | None) -> str:
    return "no rating" if rating is None else f"mu {rating.mu:.4f} sigma {rating.sigma:.4f}"


def as_json(table: Mapping[str, Mapping[str, Rating]], kind: str | None = None) -> str:
    return json.dumps([{"kind": r.kind, "player": r.player, "mu": round(r.mu, 3), "sigma": round(r.sigma, 3),
                        "ordinal": round(r.ordinal, 3), "games": r.games} for r in ordered(table, kind)], indent=1)
