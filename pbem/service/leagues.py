"""Leagues and tournaments (architecture 2.8): a league of one game kind, round robin or
Swiss, its rounds' games made by ``pbem league pair`` with the league's deadline policy,
its standings from the games' results (`pbem.service.results`).

Standings (docs/club.md, "Leagues"): a game gives a seat one point for each seat it finished
ahead of and half a point for each it tied with (1, ½, 0 in a two-seat game); a bye gives 1
in a two-seat league and (seats − 1)/2 otherwise; a game that ended with every seat abandoned
gives nobody anything. Ties are broken by Buchholz (the points of every opponent met, once
per game), then by games won outright, then by the order the players joined.

Pairing while a round still runs is refused; with ``force`` each unfinished game counts as a
draw for that pairing only (the standings count finished games only, and the game's real
result when it ends).
"""

from __future__ import annotations

import json
import logging
from dataclasses import dataclass
from typing import Any, Callable, Mapping, Sequence

from sqlmodel import Session, col, select

from pbem.core import registry
from pbem.core.codec import canonical_json
from pbem.db.models import Counter, Game, Holder, League, LeagueGame, LeagueMember, Player, SignupRequest
from pbem.errors import GameStateError, NotFoundError, UserError
from pbem.faults import checkpoint
from pbem.service import games, pairing, results, store
from pbem.service.context import Context
from pbem.service.replies import SHORT, Handled, Reply, quote
from pbem.service.texts import t

log = logging.getLogger(__name__)

OPEN, RUNNING, FINISHED = "open", "running", "finished"
#: `SignupRequest.kind` of a JOIN LEAGUE; the league's id is the payload.
JOIN_KIND = "league"


@dataclass(frozen=True)
class Standing:
    """A player's line in the standings."""

    player_id: int
    handle: str
    points: float
    buchholz: float
    wins: int
    played: int
    byes: int


# --- making a league ---------------------------------------------------------------------------


def _next_id(session: Session) -> str:
    row = session.get(Counter, "league") or Counter(name="league", value=0)
    row.value += 1
    session.add(row)
    return f"l{row.value}"


def _seats(kind: str, seats: int | None) -> tuple[Any, int]:
    try:
        rules = registry.get(kind)
    except Exception:
        raise UserError(f"unknown game kind {kind!r} (kinds: {', '.join(registry.kinds())})") from None
    info = rules.info
    count = seats if seats is not None else (2 if info.min_seats <= 2 <= info.max_seats else info.min_seats)
    if not info.min_seats <= count <= info.max_seats:
        raise UserError(f"{info.title} is played by {info.min_seats}–{info.max_seats} seats, not {count}")
    return rules, count


def create(ctx: Context, name: str, kind: str, fmt: str, players: Sequence[str], rounds: int | None = None,
           seats: int | None = None, open_signup: bool = False, deadline: str | None = None,
           options: Mapping[str, str] | None = None, policies: Mapping[str, str] | None = None) -> str:
    """A new league; with ``open_signup`` players may also JOIN LEAGUE by mail until round 1."""
    rules, count = _seats(kind, seats)
    addresses = [games.HolderSpec.parse(p).address.lower() for p in players]
    twice = sorted({a for a in addresses if addresses.count(a) > 1})
    if twice:
        raise UserError(f"{twice[0]} is named twice: a player takes one place in a league")
    if fmt not in pairing.FORMATS:
        raise UserError(f"a league's format is {' or '.join(pairing.FORMATS)}, not {fmt!r}")
    if rounds is not None and rounds < 1:
        raise UserError("a league plays at least one round")
    if not open_signup:
        planned = rounds or pairing.default_rounds(fmt, len(addresses), count)
        pairing.check(fmt, len(addresses), count, planned, rules.info.min_seats)
    game_policy = games.policy(ctx, deadline, policies)  # bad policies refused now, not at round 1
    unknown = sorted(set(options or {}) - set(rules.info.options))
    if unknown:
        raise UserError(f"unknown option {unknown[0]!r} for {rules.info.slug} (options: "
                        f"{', '.join(rules.info.options) or 'none'})")
    del game_policy
    with ctx.session() as session:
        league = League(id=_next_id(session), name=name, kind=rules.info.slug, format=fmt, rounds=rounds or 0,
                        seats_per_game=count, signup_open=open_signup, deadline=deadline or "",
                        options_json=canonical_json(dict(options or {})),
                        policy_json=canonical_json(dict(policies or {})), created_at=ctx.now())
        session.add(league)
        session.flush()
        for address in addresses:
            add_member(session, ctx, league, address)
        session.commit()
        log.info("league %s (%s, %s, %s) with %d players", league.id, name, league.kind, fmt, len(addresses))
        return league.id


def add_member(session: Session, ctx: Context, league: League, address: str) -> LeagueMember:
    player = store.player_for(session, address, ctx.config.server.language)
    assert player.id is not None
    member = LeagueMember(league_id=league.id, player_id=player.id, joined_at=ctx.now())
    session.add(member)
    session.flush()
    return member


def get(session: Session, league_id: str) -> League:
    league = session.get(League, league_id.strip().lower())
    if league is None:
        raise NotFoundError(f"no league {league_id!r}")
    return league


def members(session: Session, league_id: str) -> list[int]:
    """The players' ids, in the order they joined."""
    rows = session.exec(select(LeagueMember).where(LeagueMember.league_id == league_id).order_by(col(LeagueMember.id)))
    return [m.player_id for m in rows]


def league_games(session: Session, league_id: str) -> list[LeagueGame]:
    return list(session.exec(select(LeagueGame).where(LeagueGame.league_id == league_id)
                             .order_by(col(LeagueGame.round), col(LeagueGame.board))))


# --- results and standings -----------------------------------------------------------------------


def table_of(session: Session, game_id: str) -> list[tuple[str, int]]:
    """A league game's seats and the players paired there (the first holder of each seat: a
    player who took a seat over plays for the league member who was paired)."""
    out = []
    for seat_row in store.seats(session, game_id):
        first = session.exec(select(Holder).where(Holder.seat_id == seat_row.id).order_by(col(Holder.id))).first()
        out.append((seat_row.name, first.player_id if first is not None else seat_row.player_id))
    return out


def _history(session: Session, league: League,
             provisional: bool) -> tuple[pairing.History, dict[int, int], dict[int, list[int]]]:
    """Points, meetings, seats and byes so far; also wins and each player's opponents per game.
    ``provisional``: an unfinished game counts as a draw (pairing with --force)."""
    history = pairing.History()
    wins: dict[int, int] = {}
    per_game: list[list[int]] = []
    bye_points = 1.0 if league.seats_per_game == 2 else (league.seats_per_game - 1) / 2
    for row in league_games(session, league.id):
        if row.game_id is None:
            if row.bye_player_id is not None:
                history.byes.add(row.bye_player_id)
                history.scores[row.bye_player_id] = history.scores.get(row.bye_player_id, 0.0) + bye_points
            continue
        game = session.get(Game, row.game_id)
        assert game is not None
        table = table_of(session, game.id)
        ids = [p for _, p in table]
        points: dict[int, float] | None = None
        if game.status == "finished":
            result = results.of_game(session, game)
            points = {p: (result.points(seat) if result is not None else 0.0) for seat, p in table}
            if result is not None:
                first = [s.seat for s in result.seats if s.rank == 1]
                if len(first) == 1:
                    winner = dict(table)[first[0]]
                    wins[winner] = wins.get(winner, 0) + 1
            per_game.append(ids)
        elif provisional:
            points = {p: (len(ids) - 1) / 2 for p in ids}
        pairing.record(history, ids, points)
    met: dict[int, list[int]] = {}  # each finished game's opponents, once per game
    for ids in per_game:
        for p in ids:
            met.setdefault(p, []).extend(q for q in ids if q != p)
    return history, wins, met


def standings(session: Session, league: League) -> list[Standing]:
    """The standings from finished games, best first (tie-breaks in the module's docstring)."""
    history, wins, met = _history(session, league, provisional=False)
    order = members(session, league.id)
    joined = {p: i for i, p in enumerate(order)}
    played = {p: len(v) // max(league.seats_per_game - 1, 1) for p, v in met.items()}
    lines = []
    for p in order:
        buchholz = sum(history.scores.get(q, 0.0) for q in met.get(p, []))
        player = session.get(Player, p)
        assert player is not None
        lines.append(Standing(p, results.handle(player), history.scores.get(p, 0.0), buchholz, wins.get(p, 0),
                              played.get(p, 0), int(p in history.byes)))
    return sorted(lines, key=lambda s: (-s.points, -s.buchholz, -s.wins, joined[s.player_id]))


# --- pairing a round -------------------------------------------------------------------------------


def pair(ctx: Context, league_id: str, force: bool = False) -> str:
    """Make the next round's games (each welcome mailed as `games.create` does).

    The round, its byes and its boards (each with its players) are committed first, in one
    transaction; then each board's game is made and linked to its board in the game's own
    transaction. A pairing cut short (a crash between two games) is finished by the next call,
    which makes the boards still without a game instead of pairing another round."""
    with ctx.session() as session:
        league = get(session, league_id)
        planned = _unmade(session, league)
        if planned:
            number = league.round
            tables = [(row.board, tuple(json.loads(row.table_json))) for row in planned]
            byes = [row.bye_player_id for row in league_games(session, league.id)
                    if row.round == number and row.bye_player_id is not None]
            log.warning("league %s: round %s was cut short; making its %d remaining game(s)", league.id, number,
                        len(tables))
        else:
            number, tables, byes = _pair_round(session, league, force)
        rules, _ = _seats(league.kind, league.seats_per_game)
        kind, name, deadline = league.kind, league.name, league.deadline or None
        options = json.loads(league.options_json)
        policies = json.loads(league.policy_json)
        seat_names = rules.info.seats
        ids = {row.board: row.id for row in league_games(session, league.id) if row.round == number and row.board}
        addresses = {p: session.get(Player, p) for _, table in tables for p in table}
    made = []
    for board, table in tables:
        specs = []
        for seat, p in zip(seat_names, table):
            player = addresses[p]
            assert player is not None
            specs.append(games.SeatSpec(seat, player.address, player.language))
        game_id = games.create(ctx, kind, f"{name}, round {number}, game {board}", specs, deadline=deadline,
                               options=options, policies=policies, linked=_linker(ids[board]))
        made.append(game_id)
        checkpoint("leagues.mid-pairing")
    ctx.after_commit()
    with ctx.session() as session:
        every = [row.game_id for row in league_games(session, league_id) if row.round == number and row.game_id]
    shown = ", ".join(every) if not planned else f"{', '.join(every)} (made now: {', '.join(made)})"
    bye_text = f"; bye: {', '.join(_handle_of(ctx, p) for p in byes)}" if byes else ""
    return f"league {league_id} round {number}: games {shown}{bye_text}"


def _unmade(session: Session, league: League) -> list[LeagueGame]:
    """The boards of the league's current round still without their game (a pairing cut short)."""
    return [row for row in league_games(session, league.id)
            if row.round == league.round and row.board > 0 and row.game_id is None]


def _pair_round(session: Session, league: League, force: bool) -> tuple[int, list[tuple[int, tuple[int, ...]]],
                                                                         list[int]]:
    """Pair the next round and commit it with its byes and boards (no game made yet)."""
    rules, count = _seats(league.kind, league.seats_per_game)
    players = members(session, league.id)
    rounds = league.rounds or pairing.default_rounds(league.format, len(players), count)
    if league.round == 0:
        pairing.check(league.format, len(players), count, rounds, rules.info.min_seats)
    if league.round >= rounds:
        raise GameStateError(f"league {league.id} has played all its {rounds} rounds")
    running = [row.game_id for row in league_games(session, league.id) if row.game_id is not None
               and (g := session.get(Game, row.game_id)) is not None and g.status != "finished"]
    if running and not force:
        raise GameStateError(f"league {league.id}: round {league.round} still has games running "
                             f"({', '.join(running)}); pair when they end, or with --force to count each of "
                             "them as a draw for this pairing")
    history, _, _ = _history(session, league, provisional=True)
    number = league.round + 1
    if league.format == pairing.ROUND_ROBIN:
        plan = pairing.round_robin(players, count, number, history)
    else:
        plan = pairing.swiss(players, count, rules.info.min_seats, history)
    league.round, league.rounds, league.status, league.signup_open = number, rounds, RUNNING, False
    session.add(league)
    for bye in plan.byes:
        session.add(LeagueGame(league_id=league.id, round=number, board=0, bye_player_id=bye))
    tables = list(enumerate(plan.tables, 1))
    for board, table in tables:
        session.add(LeagueGame(league_id=league.id, round=number, board=board, table_json=json.dumps(list(table))))
    session.commit()
    return number, tables, list(plan.byes)


def _linker(row_id: int | None) -> Callable[[Session, str], None]:
    """Links a board to its new game inside the game's transaction (`games.create`)."""
    def link(session: Session, game_id: str) -> None:
        row = session.get(LeagueGame, row_id)
        assert row is not None and row.game_id is None, "a board is made once"
        row.game_id = game_id
        session.add(row)
    return link


def _handle_of(ctx: Context, player_id: int) -> str:
    with ctx.session() as session:
        player = session.get(Player, player_id)
        return results.handle(player) if player is not None else str(player_id)


def finish_if_done(session: Session, league: League) -> bool:
    """A league whose last round's games are all over is finished."""
    if league.status != RUNNING or league.round < league.rounds or _unmade(session, league):
        return False
    for row in league_games(session, league.id):
        if row.game_id is not None and (g := session.get(Game, row.game_id)) is not None and g.status != "finished":
            return False
    league.status = FINISHED
    session.add(league)
    return True


# --- reading ------------------------------------------------------------------------------------------


def list_leagues(ctx: Context) -> list[dict[str, Any]]:
    with ctx.session() as session:
        rows = list(session.exec(select(League).order_by(col(League.created_at), col(League.id))))
        for league in rows:
            if finish_if_done(session, league):
                session.commit()
        return [{"id": lg.id, "name": lg.name, "kind": lg.kind, "format": lg.format, "status": lg.status,
                 "round": lg.round, "rounds": lg.rounds or None, "seats_per_game": lg.seats_per_game,
                 "players": len(members(session, lg.id)), "signup_open": lg.signup_open} for lg in rows]


def show(ctx: Context, league_id: str) -> dict[str, Any]:
    """A league for the CLI and the site: standings and rounds (no addresses)."""
    with ctx.session() as session:
        league = get(session, league_id)
        if finish_if_done(session, league):
            session.commit()
        rounds: dict[int, list[dict[str, Any]]] = {}
        for row in league_games(session, league.id):
            entry: dict[str, Any]
            if row.game_id is None and row.board > 0:  # a pairing cut short: `league pair` makes it
                entry = {"board": row.board, "status": "not made yet"}
            elif row.game_id is None:
                player = session.get(Player, row.bye_player_id) if row.bye_player_id is not None else None
                entry = {"bye": results.handle(player) if player is not None else None}
            else:
                game = session.get(Game, row.game_id)
                assert game is not None
                seats = [(seat, session.get(Player, p)) for seat, p in table_of(session, game.id)]
                entry = {"game": game.id, "board": row.board, "status": game.status,
                         "seats": {seat: results.handle(p) for seat, p in seats if p is not None},
                         "outcome": json.loads(game.outcome_json) if game.outcome_json else None}
            rounds.setdefault(row.round, []).append(entry)
        return {"id": league.id, "name": league.name, "kind": league.kind, "format": league.format,
                "status": league.status, "round": league.round, "rounds": league.rounds or None,
                "seats_per_game": league.seats_per_game, "signup_open": league.signup_open,
                "standings": [s.__dict__ for s in standings(session, league)],
                "games": {str(k): v for k, v in sorted(rounds.items())}}


# --- by mail: JOIN LEAGUE and STANDINGS ------------------------------------------------------------------


def _refuse(reply: Reply, key: str, note: str, **args: object) -> Handled:
    reply.send(reply.mail.sender or "", t("subject.refused", reply.lang), t(key, reply.lang, **args))
    return Handled("refused", note)


def request_join(reply: Reply, league_id: str) -> Handled:
    """JOIN LEAGUE <id>: every check, then a one-time code as for a game's JOIN."""
    from pbem.service import signup

    session, ctx = reply.session, reply.ctx
    address = (reply.mail.sender or "").strip().lower()
    if not ctx.config.club.may_sign_up(address):
        return _refuse(reply, "club.not_on_roster", f"join league {quote(league_id, SHORT)}: not on the roster")
    league = session.get(League, league_id.strip().lower())
    if league is None:
        return _refuse(reply, "league.no_league", f"join league: no league {quote(league_id, SHORT)}",
                       league=quote(league_id, SHORT))
    if not league.signup_open or league.round > 0:
        return _refuse(reply, "league.closed", f"join league {league.id}: sign-up closed", league=league.id)
    player = session.exec(select(Player).where(Player.address == address)).first()
    if player is not None and player.id in members(session, league.id):
        return _refuse(reply, "league.already_in", f"join league {league.id}: already a member", league=league.id)
    waiting = session.exec(select(SignupRequest).where(
        SignupRequest.kind == JOIN_KIND, SignupRequest.address == address, SignupRequest.payload == league.id,
        SignupRequest.status == signup.PENDING, col(SignupRequest.expires_at) > ctx.now())).first()
    if waiting is not None:
        return _refuse(reply, "league.already_asked", f"join league {league.id}: a request is pending",
                       league=league.id)
    what = t("league.what_join", reply.lang, league=league.id, name=league.name,
             title=registry.get(league.kind).info.title)
    return signup.ask(reply, JOIN_KIND, None, "", league.id, what)


def confirm_join(reply: Reply, req: SignupRequest) -> Handled:
    """The confirmed JOIN LEAGUE: the sender joins, if sign-up is still open."""
    session, ctx = reply.session, reply.ctx
    league = session.get(League, req.payload)
    req.status = "done"
    session.add(req)
    if league is None or not league.signup_open or league.round > 0:
        return _refuse(reply, "league.closed", f"confirm join league {req.payload}: sign-up closed",
                       league=req.payload)
    player = store.player_for(session, req.address, reply.lang)
    if player.id in members(session, league.id):
        return _refuse(reply, "league.already_in", f"confirm join league {league.id}: already a member",
                       league=league.id)
    add_member(session, ctx, league, req.address)
    count = len(members(session, league.id))
    reply.send(req.address, t("subject.league_joined", reply.lang),
               t("league.joined", reply.lang, league=league.id, name=league.name, count=count))
    return Handled("command", f"join league {league.id}: {req.address} joined")


def standings_text(session: Session, league: League, lang: str) -> str:
    """STANDINGS <league>: the table, by public names only."""
    rows = standings(session, league)
    lines = [t("league.standings_head", lang, league=league.id, name=league.name, round=league.round,
               rounds=league.rounds or "?"), ""]
    lines.append(t("league.standings_columns", lang))
    for i, s in enumerate(rows, 1):
        lines.append(f"{i:>3}. {s.handle:<10} {s.points:>5g} {s.buchholz:>6g} {s.wins:>3} {s.played:>3}")
    lines += ["", t("league.standings_rules", lang)]
    return "\n".join(lines)


def request_standings(reply: Reply, league_id: str) -> Handled:
    league = reply.session.get(League, league_id.strip().lower())
    if league is None:
        return _refuse(reply, "league.no_league", f"standings: no league {quote(league_id, SHORT)}",
                       league=quote(league_id, SHORT))
    reply.send(reply.mail.sender or "", t("subject.league_standings", reply.lang),
               standings_text(reply.session, league, reply.lang))
    return Handled("command", f"standings {league.id}")
