"""What an announced absence (``ABSENCE <from> <to>``, `pbem.db.models.Absence`) does to
deadlines (architecture 2.8, issue "A club by mail" 4).

A deadline that falls inside the absence of a seat's player, while the seat still owes
orders, moves past the absence: to the same time of day on the day after it (in the
player's zone), by whole days. Each game's policy ``absence_days`` (default
``games.absence_days``) caps the days moved for one player in that game; the days used are
kept on the player's `Holder` row. What the cap does not cover is not moved: the seat's
default orders play at the deadline, as on any missed deadline. Every player of the game
is told of the new deadline (with its calendar event); the absent player is told how much
of the allowance is used.

A team's seat keeps its deadline while one of its active players is not away.

`apply` runs with the deadline job (every open phase of every active game, before the due
ones resolve), so an absence announced after a phase opened still moves its deadline. It
changes nothing a second time: a moved deadline lies outside the absence.
"""

from __future__ import annotations

import json
import logging
from dataclasses import dataclass
from datetime import date, datetime, timedelta
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from sqlmodel import Session, col, select

from pbem.db.models import Absence, Game, Holder, PhaseRow, Seat
from pbem.service import calendar, holders, mailer, store
from pbem.service.context import Context
from pbem.service.texts import t
from pbem.service.timefmt import duration, show, zone_of

log = logging.getLogger(__name__)

#: How many absences in a row one deadline may be moved past in one go (one per seat at most).
MAX_STEPS = 16


@dataclass(frozen=True)
class Move:
    """A seat's claim on the deadline: ``days`` granted to ``holder`` (``wanted`` asked)."""

    seat: Seat
    holder: Holder
    days: int
    wanted: int


def limit(ctx: Context, game: Game) -> int:
    """The game's allowance of moved days per player (its policy, else the configuration)."""
    policy = json.loads(game.policy_json or "{}")
    return int(policy.get("absence_days", ctx.config.games.absence_days))


def _zone(session: Session, game: Game, address: str) -> ZoneInfo:
    try:
        return ZoneInfo(zone_of(session, game, address))
    except (ZoneInfoNotFoundError, ValueError):
        return ZoneInfo("UTC")


def away_until(session: Session, game: Game, holder: Holder, moment: datetime) -> date | None:
    """The last day of the holder's absence that covers ``moment`` (read in their zone), or None."""
    day = moment.astimezone(_zone(session, game, holder.address)).date()
    rows = session.exec(select(Absence).where(Absence.player_id == holder.player_id,
                                              col(Absence.cancelled).is_(False),
                                              col(Absence.start_date) <= day, col(Absence.end_date) >= day))
    ends = [r.end_date for r in rows]
    return max(ends) if ends else None


def _claim(session: Session, ctx: Context, game: Game, seat: Seat, deadline: datetime, allowance: int) -> Move | None:
    """The days the seat asks the deadline to move: none when one of its players is here."""
    active = holders.active(session, seat)
    if not active:
        return None
    wanted: list[tuple[int, Holder]] = []
    for holder in active:
        end = away_until(session, game, holder, deadline)
        if end is None:
            return None  # a team-mate is here: the seat keeps its deadline
        local = deadline.astimezone(_zone(session, game, holder.address)).date()
        wanted.append(((end - local).days + 1, holder))
    days, holder = min(wanted, key=lambda w: w[0])  # the first player back frees the seat
    granted = max(0, min(days, allowance - holder.absence_days_used))
    return Move(seat, holder, granted, days)


def adjust(session: Session, ctx: Context, game: Game, phase: PhaseRow) -> int:
    """Move the phase's deadline past the absences of the seats that owe orders; returns the
    days moved (0: nothing changed). Within the caller's transaction."""
    if game.status != "active" or phase.deadline is None or phase.resolved_at is not None:
        return 0
    allowance = limit(ctx, game)
    if allowance <= 0:
        return 0
    filed = {r.seat for r in store.sheets_of_phase(session, game.id, phase.seq)}
    seats = {s.name: s for s in store.seats(session, game.id)}
    owing = [seats[n] for n in store.awaiting(phase) if n in seats and n not in filed and seats[n].status == "active"]
    total = 0
    moves: list[Move] = []
    short: list[Move] = []
    for _ in range(MAX_STEPS):
        claims = [c for c in (_claim(session, ctx, game, s, phase.deadline, allowance) for s in owing) if c]
        short += [c for c in claims if c.days < c.wanted and c.seat.name not in {m.seat.name for m in short}]
        step = max((c.days for c in claims), default=0)
        if step <= 0:
            break
        phase.deadline = phase.deadline + timedelta(days=step)
        total += step
        for c in claims:
            if c.days > 0:
                c.holder.absence_days_used += min(c.days, step)
                session.add(c.holder)
                moves.append(c)
    if total == 0 and not short:
        return 0
    if total:
        calendar.moved(phase)
        phase.reminders_sent = 0  # the reminders count from the new deadline
        session.add(phase)
        session.flush()
        log.info("game %s: deadline of phase %d moved %d day(s) for absences (%s)", game.id, phase.seq, total,
                 ", ".join(sorted({m.seat.name for m in moves})))
        _tell(session, ctx, game, phase, moves, allowance)
    for c in short:
        if c.holder.absence_days_used >= allowance and any(m.holder.id == c.holder.id for m in moves):
            lang = c.holder.language
            mailer.queue(session, ctx, to=c.holder.address,
                         subject=mailer.subject(game, t("subject.deadline_moved", lang), phase.turn, lang),
                         text=t("absence.limit", lang, game=game.id, turn=phase.turn, seat=c.seat.name,
                                limit=duration(timedelta(days=allowance), lang),
                                deadline=show(phase.deadline, zone_of(session, game, c.holder.address), lang)),
                         kind="notice", game=game, seat=c.seat.name)
    return total


def _tell(session: Session, ctx: Context, game: Game, phase: PhaseRow, moves: list[Move], allowance: int) -> None:
    """Every player of the game hears of the new deadline, in their language and zone, with
    the calendar event; the absent players also hear what is left of their allowance."""
    absent = {m.holder.id: m for m in moves}
    seat_names = ", ".join(sorted({m.seat.name for m in moves}))
    for seat in store.seats(session, game.id):
        for holder in holders.recipients(session, seat):
            lang, zone = holder.language, zone_of(session, game, holder.address)
            when = show(phase.deadline, zone, lang)
            mine = absent.get(holder.id)
            text = (t("absence.moved_you", lang, game=game.id, turn=phase.turn, deadline=when,
                      used=duration(timedelta(days=holder.absence_days_used), lang),
                      limit=duration(timedelta(days=allowance), lang)) if mine is not None else
                    t("absence.moved", lang, game=game.id, turn=phase.turn, deadline=when, seat=seat_names))
            mailer.queue(session, ctx, to=holder.address,
                         subject=mailer.subject(game, t("subject.deadline_moved", lang), phase.turn, lang),
                         text=text, kind="notice", game=game, seat=seat.name,
                         attachments=calendar.attachment(ctx, game, phase, lang))


def apply(ctx: Context) -> int:
    """The deadline job's first step: every open phase of an active game, one transaction
    per game; returns how many deadlines moved."""
    with ctx.session() as session:
        today = ctx.now().date()
        spans = [(a.start_date, a.end_date) for a in session.exec(select(Absence).where(
            col(Absence.cancelled).is_(False), col(Absence.end_date) >= today - timedelta(days=1)))]
        if not spans:
            return 0  # nobody is away: nothing to look at
        open_phases = []
        for g, r in session.exec(select(Game, PhaseRow).where(
                Game.status == "active", PhaseRow.game_id == Game.id, PhaseRow.seq == Game.phase_seq,
                col(PhaseRow.resolved_at).is_(None))):
            day = r.deadline.date() if r.deadline is not None else None
            # a day's slack either side: the absences are read in each player's own zone
            if day is not None and any(s - timedelta(days=1) <= day <= e + timedelta(days=1) for s, e in spans):
                open_phases.append((g.id, r.seq))
    moved = 0
    for game_id, seq in open_phases:
        with ctx.session() as session:
            game = store.get_game(session, game_id, lock=True)
            phase = store.current_phase(session, game)
            if game.status != "active" or phase is None or phase.seq != seq:
                continue
            if adjust(session, ctx, game, phase):
                moved += 1
            session.commit()
    return moved
