"""What the site shows, read from the database in one pass: games, players, leagues,
ratings, reliability. Nothing here is secret: seeds, secrets, orders and addresses are
left in the database (an address only where ``site.show_addresses`` allows it)."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from sqlmodel import Session, col, select

from pbem.db.models import Game, League, Player
from pbem.service import leagues, ratings, reliability, results, store
from pbem.service.context import Context


@dataclass
class SitePlayer:
    id: int
    handle: str
    label: str  # the name the club knows them by, else the handle
    address: str  # "" unless the club shows addresses
    figures: reliability.Reliability


@dataclass
class SiteGame:
    id: str
    name: str
    kind: str
    title: str
    status: str  # active | paused | finished
    turn: int | None
    phase: str
    deadline: datetime | None
    phase_seq: int | None  # the open phase (for its calendar event)
    calendar_sequence: int
    seats: list[tuple[str, list[str]]]  # seat, player handles
    places: dict[str, int]  # finished and ranked: seat -> place
    outcome: dict[str, Any] | None
    summary: str
    created_at: datetime | None
    finished_at: datetime | None
    stamp: str  # changes whenever the game does: the archive is written again
    league: tuple[str, int] | None = None  # league id, round


@dataclass
class Site:
    title: str
    built: datetime
    games: list[SiteGame]
    players: dict[str, SitePlayer]  # by handle
    leagues: list[dict[str, Any]]
    ratings: list[ratings.Rating]
    domain: str
    url: str
    show_addresses: bool
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def running(self) -> list[SiteGame]:
        return [g for g in self.games if g.status != "finished"]

    @property
    def finished(self) -> list[SiteGame]:
        return sorted((g for g in self.games if g.status == "finished"),
                      key=lambda g: (g.finished_at or g.created_at or self.built, g.id), reverse=True)


def collect(ctx: Context) -> Site:
    """Everything the pages need, from one session."""
    cfg = ctx.config
    with ctx.session() as session:
        people = {p.id: p for p in session.exec(select(Player))}
        figures = reliability.of_players(session)
        players = {}
        for pid, p in people.items():
            assert pid is not None
            players[results.handle(p)] = SitePlayer(pid, results.handle(p), p.name or results.handle(p),
                                                    p.address if cfg.site.show_addresses else "",
                                                    figures.get(pid, reliability.Reliability()))
        in_league = _league_games(session)
        games = [_game(session, g, in_league.get(g.id)) for g in
                 session.exec(select(Game).where(Game.status != "open").order_by(col(Game.created_at), col(Game.id)))]
        league_ids = [lg.id for lg in session.exec(select(League).order_by(col(League.created_at), col(League.id)))]
    shown_leagues = [leagues.show(ctx, lid) for lid in league_ids]
    rated = ratings.ordered(ratings.compute(ratings.from_database(ctx)))
    return Site(cfg.site.title, ctx.now(), games, players, shown_leagues, rated, cfg.server.domain,
                cfg.site.url.rstrip("/"), cfg.site.show_addresses)


def _league_games(session: Session) -> dict[str, tuple[str, int]]:
    from pbem.db.models import LeagueGame

    return {row.game_id: (row.league_id, row.round)
            for row in session.exec(select(LeagueGame).where(col(LeagueGame.game_id).is_not(None)))
            if row.game_id is not None}


def _game(session: Session, game: Game, league: tuple[str, int] | None) -> SiteGame:
    rules = store.rules_of(game)
    phase = store.current_phase(session, game) if game.status != "finished" else None
    outcome = json.loads(game.outcome_json) if game.outcome_json else None
    places: dict[str, int] = {}
    summary = ""
    if game.status == "finished":
        result = results.of_game(session, game)
        if result is not None:
            places = {s.seat: s.rank for s in result.seats}
        final = rules.outcome(store.state_of(game)) if game.state_json else None
        summary = rules.catalog.text(final.summary, "en") if final is not None else _said(outcome)
    seats = [(seat, labels) for seat, labels in results.seat_players(session, game.id).items()]
    return SiteGame(game.id, game.name, game.kind, rules.info.title, game.status,
                    phase.turn if phase is not None else None, phase.name if phase is not None else "",
                    phase.deadline if phase is not None and game.status == "active" else None,
                    phase.seq if phase is not None else None, phase.calendar_sequence if phase is not None else 0,
                    seats, places, outcome, summary, game.created_at, game.finished_at,
                    f"{game.head_hash} {game.status} {game.phase_seq}", league)


def _said(outcome: dict[str, Any] | None) -> str:
    """An outcome the rules did not reach (agreement, concession, the game master, abandonment)."""
    if not outcome:
        return ""
    if outcome.get("result") == "draw":
        return f"Drawn ({outcome.get('reason', '')})."
    if outcome.get("result") == "win":
        return f"Won by {', '.join(outcome.get('winners', []))} ({outcome.get('reason', '')})."
    return "Abandoned: nobody was playing any more."
