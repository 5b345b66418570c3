"""The turn lifecycle: open a phase, collect sheets, resolve it (early when every
awaited seat has sent orders, or at the deadline with default orders), chain the
phase hashes, and queue each seat's report (one per holder: see `pbem.service.holders`).

Resolution runs inside the caller's transaction, so a mail's orders, the dice, the
new state and the reports commit together or not at all.
"""

from __future__ import annotations

import json
import logging
from datetime import datetime, timedelta
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, Collection, Mapping, Sequence

from sqlalchemy import bindparam, insert, update
from sqlalchemy import select as sa_select
from sqlmodel import Session, col, select

from pbem.config import parse_duration
from pbem.core.codec import canonical_json, sha256_hex
from pbem.core.dice import Roll, VerifiableDice, orders_digest
from pbem.core.rules import Rules, Sheet
from pbem.db import direct
from pbem.db.models import EventRow, Game, PhaseRow, ReportJob, RollRow, Seat, SheetRow
from pbem.service import absences, calendar, claims, holders, mailer, store, wakeup
from pbem.service.context import Context
from pbem.service.texts import t
from pbem.service.timefmt import show, zone_of

log = logging.getLogger(__name__)


def phase_hash_of(prev: str, game_id: str, seq: int, turn: int, name: str, canon: Mapping[str, str], digest: str,
                  rolls: Sequence[Roll], state_hash: str) -> str:
    """One link of the chain: what was ordered, what the dice said, what came of it."""
    return sha256_hex(canonical_json({
        "prev": prev, "game": game_id, "seq": seq, "turn": turn, "name": name, "orders": dict(canon),
        "digest": digest, "rolls": [[r.counter, r.purpose, r.sides, r.value] for r in rolls], "state": state_hash}))


def phase_hash(prev: str, game_id: str, row: PhaseRow, canon: dict[str, str], rolls: Sequence[Roll]) -> str:
    return phase_hash_of(prev, game_id, row.seq, row.turn, row.name, canon, row.orders_digest, rolls, row.state_hash)


def receipt(game_id: str, seq: int, seat: str, canonical: str) -> str:
    return sha256_hex(f"{game_id}|{seq}|{seat}|{canonical}")[:16]


def _policy(game: Game) -> dict[str, Any]:
    return dict(json.loads(game.policy_json or "{}"))


def open_phase(session: Session, ctx: Context, game: Game, rules: Rules, state: Any) -> PhaseRow:
    phase = rules.phase(state)
    now = ctx.now()
    length = (parse_duration(_policy(game).get("decision", ctx.config.games.decision_deadline))
              if phase.decision else timedelta(seconds=game.turn_seconds))
    row = PhaseRow(game_id=game.id, seq=game.phase_seq, turn=phase.turn, name=phase.name,
                   awaiting_json=json.dumps(list(phase.awaiting)), sealed=phase.sealed, decision=phase.decision,
                   opened_at=now, deadline=now + length, rolls_start=game.roll_counter)
    session.add(row)
    session.flush()
    return row


@dataclass(frozen=True)
class Filed:
    """A sheet just put on file: what the answers to its mail quote (the row itself is not
    read again in that transaction, so no ORM object is made for it)."""

    receipt: str
    canonical: str


def file_sheet(session: Session, ctx: Context, game: Game, rules: Rules, seq: int, sheet: Sheet, *, raw_text: str,
               source: str, sender: str = "", inbound_id: int | None = None,
               mail_date: datetime | None = None, earlier: Sequence[Any] | None = None) -> Filed:
    """Put a sheet on file, superseding the seat's earlier one for this phase. ``earlier``: the
    seat's sheets on file for the phase (not superseded), when the caller read them in this
    transaction under the game's lock (an order mail reads the phase's sheets once: `inbound`).
    The new row is one core INSERT: the ORM's unit of work cost more than the statement."""
    if earlier is None:
        earlier = list(session.exec(select(SheetRow).where(SheetRow.game_id == game.id, SheetRow.phase_seq == seq,
                                                           SheetRow.seat == sheet.seat,
                                                           col(SheetRow.superseded).is_(False))))
    by_id = []  # read as rows, not objects (`inbound.read_table`): superseded by one core UPDATE
    for old in earlier:
        if isinstance(old, SheetRow):
            old.superseded = True
            session.add(old)
        else:
            by_id.append(old.id)
    if by_id:
        session.connection().execute(_SUPERSEDE, {"ids": by_id})
    values = _sheet_values(ctx, game, rules, seq, sheet, raw_text=raw_text, source=source, sender=sender,
                           inbound_id=inbound_id, mail_date=mail_date)
    direct.rows(session.connection(), _INSERT_SHEET, values)
    return Filed(values["receipt"], values["canonical"])


#: A sheet's row, written without the ORM (`file_sheet`); every column given, none defaulted.
_INSERT_SHEET = insert(SheetRow.__table__)  # type: ignore[attr-defined]
#: Sheets superseded by id (`file_sheet`'s ``earlier`` read as rows).
_SUPERSEDE = (update(SheetRow.__table__).where(SheetRow.__table__.c.id.in_(bindparam("ids", expanding=True)))  # type: ignore[attr-defined]
              .values(superseded=True))


def _sheet_values(ctx: Context, game: Game, rules: Rules, seq: int, sheet: Sheet, *, raw_text: str, source: str,
                  sender: str = "", inbound_id: int | None = None,
                  mail_date: datetime | None = None) -> dict[str, Any]:
    """The columns of a sheet's row (all but its id)."""
    canonical = sheet.canonical()
    return {"game_id": game.id, "phase_seq": seq, "seat": sheet.seat, "raw_text": raw_text,
            "orders_json": canonical_json(rules.encode_orders(sheet.orders)), "canonical": canonical,
            "receipt": receipt(game.id, seq, sheet.seat, canonical), "superseded": False, "source": source,
            "sender": sender, "mail_date": mail_date, "inbound_id": inbound_id, "received_at": ctx.now()}


def _sheet_row(ctx: Context, game: Game, rules: Rules, seq: int, sheet: Sheet, *, raw_text: str, source: str,
               sender: str = "", inbound_id: int | None = None, mail_date: datetime | None = None) -> SheetRow:
    return SheetRow(**_sheet_values(ctx, game, rules, seq, sheet, raw_text=raw_text, source=source, sender=sender,
                                    inbound_id=inbound_id, mail_date=mail_date))


def _on_file(session: Session, game: Game, seq: int) -> dict[str, SheetRow]:
    """`store.sheet_on_file` of every seat of phase ``seq``, in one query: each seat's latest sheet."""
    return {r.seat: r for r in store.sheets_of_phase(session, game.id, seq)}


def _seat_rows(session: Session, game: Game) -> dict[str, Seat]:
    return {s.name: s for s in store.seats(session, game.id)}


def ready(session: Session, game: Game, phase: PhaseRow, *, seats: Mapping[str, Seat] | None = None,
          filed: Collection[str] | None = None) -> bool:
    """Every awaited seat has a sheet on file, or is out of play (abandoned, conceded).
    ``seats`` (by name) and ``filed`` (the seats with a sheet on file): when the caller read
    them in this transaction, under the game's lock (an order mail: `inbound`)."""
    if seats is None:
        seats = _seat_rows(session, game)
    if filed is None:
        filed = {r.seat for r in store.sheets_of_phase(session, game.id, phase.seq)}
    return all(s in filed or (s in seats and seats[s].status != "active") for s in store.awaiting(phase))


def resolve_if_ready(session: Session, ctx: Context, game: Game) -> bool:
    """Early resolution: resolve now when nothing more is awaited."""
    if game.status != "active":
        return False
    phase = store.current_phase(session, game)
    if phase is None or not ready(session, game, phase):
        return False
    if not _policy(game).get("early", True) and phase.deadline and ctx.now() < phase.deadline:
        return False
    resolve(session, ctx, game)
    return True


def resolve(session: Session, ctx: Context, game: Game, current: PhaseRow | None = None) -> list[PhaseRow]:
    """Resolve the open phase (defaults for the seats that sent nothing), then any
    phase that awaits nobody; record the report job for them (see `reports`).
    ``current``: the open phase's row, when the caller read it already in this transaction."""
    rules = store.rules_of(game)
    seats = _seat_rows(session, game)
    resolved: list[PhaseRow] = []
    missed: list[str] = []
    roster: holders.Roster | None = None  # the holders, read once when a notice goes out
    seed = bytes.fromhex(game.seed_hex)
    while True:
        state = store.state_of(game)
        phase = rules.phase(state)
        row = (current if current is not None and current.game_id == game.id and current.seq == game.phase_seq
               else store.current_phase(session, game))
        assert row is not None, f"game {game.id} has no open phase {game.phase_seq}"
        sheets: dict[str, Sheet] = {}
        on_file = _on_file(session, game, row.seq)
        for seat_name in phase.awaiting:
            filed = on_file.get(seat_name)
            if filed is not None:
                sheets[seat_name] = Sheet(seat_name, rules.decode_orders(json.loads(filed.orders_json)))
                if filed.source == "mail" and seat_name in seats:
                    seats[seat_name].misses = 0
                continue
            sheet = rules.default_orders(state, seat_name)
            sheets[seat_name] = sheet
            # file_sheet without its search for an earlier sheet: the seat has none on file
            session.add(_sheet_row(ctx, game, rules, row.seq, sheet, raw_text="", source="default"))
            if seat_name in seats and seats[seat_name].status == "active":
                missed.append(seat_name)
        if missed and roster is None:
            roster = holders.Roster(session, game, ctx.config.server.domain)
        _apply_misses(session, ctx, game, seats, missed, roster)
        missed = []
        canon = {s: sheets[s].canonical() for s in sorted(sheets)}
        row.orders_digest = orders_digest(canon)
        dice = VerifiableDice(seed, game.id, row.seq, row.orders_digest, game.roll_counter)
        result = rules.resolve(state, sheets, dice)
        for r in dice.record:
            session.add(RollRow(game_id=game.id, phase_seq=row.seq, counter=r.counter, purpose=r.purpose,
                                sides=r.sides, value=r.value))
        for i, ev in enumerate(result.events):
            session.add(EventRow(game_id=game.id, phase_seq=row.seq, seq=i, kind=ev.kind,
                                 data_json=canonical_json(dict(ev.data)),
                                 to_json=json.dumps(list(ev.to) if ev.to is not None else None)))
        row.state_hash = store.set_state(game, rules, result.state)
        row.state_json = game.state_json
        row.rolls_start, row.rolls_count = game.roll_counter, len(dice.record)
        row.resolved_at = ctx.now()
        row.prev_hash = game.head_hash
        row.hash = phase_hash(game.head_hash, game.id, row, canon, dice.record)
        session.add(row)
        game.head_hash = row.hash
        game.roll_counter = dice.next_counter
        game.phase_seq += 1
        resolved.append(row)
        outcome = rules.outcome(result.state)
        if outcome is not None:
            game.status = "finished"
            game.finished_at = ctx.now()
            game.seed_revealed = True
            game.outcome_json = canonical_json({"result": outcome.result, "winners": list(outcome.winners),
                                                "reason": outcome.reason})
            break
        nxt = open_phase(session, ctx, game, rules, result.state)
        waiting = [s for s in store.awaiting(nxt) if s not in seats or seats[s].status == "active"]
        if waiting:
            break
        # Nobody to wait for (a server step, or only seats out of play): go on at once.
        if all(s.status != "active" for s in seats.values()):
            game.status = "finished"
            game.finished_at = ctx.now()
            game.seed_revealed = True
            game.outcome_json = canonical_json({"result": "abandoned", "winners": [], "reason": "abandoned"})
            break
    session.add(game)
    session.add(ReportJob(game_id=game.id, first_seq=resolved[0].seq, last_seq=resolved[-1].seq,
                          created_at=ctx.now()))
    session.flush()
    wakeup.announce(session)  # a worker drawing maps: its reports to draw
    return resolved


def abandon(session: Session, ctx: Context, game: Game, seat: Seat, reason: str = "misses",
            roster: holders.Roster | None = None) -> None:
    """The seat is abandoned: everybody is told; from now on its default orders apply at
    once (a phase awaiting only abandoned seats resolves without waiting)."""
    seat.status = "abandoned"
    session.add(seat)
    log.info("game %s: seat %s abandoned (%s)", game.id, seat.name, reason)
    key = "notice.abandoned" if reason == "misses" else "notice.left"
    for other in store.seats(session, game.id):
        holders.tell(session, ctx, game, other, lambda lang: t("subject.abandoned", lang),
                     lambda lang: t(key, lang, game=game.id, seat=seat.name, misses=seat.misses), roster=roster)
    session.flush()
    if reason != "misses":
        resolve_if_ready(session, ctx, game)


def _apply_misses(session: Session, ctx: Context, game: Game, seats: dict[str, Seat], missed: list[str],
                  roster: holders.Roster | None = None) -> None:
    pol = _policy(game)
    for name in missed:  # every count first: the seats' rows are written in one statement
        seats[name].misses += 1
    for name in missed:
        seat = seats[name]
        if seat.misses >= int(pol.get("abandon_after", 3)):
            abandon(session, ctx, game, seat, roster=roster)
        elif seat.misses >= int(pol.get("warn_after", 1)):
            left = int(pol.get("abandon_after", 3)) - seat.misses
            holders.tell(session, ctx, game, seat, lambda lang: t("subject.missed", lang),
                         lambda lang: t("notice.missed", lang, game=game.id, seat=name, misses=seat.misses, left=left),
                         roster=roster)
        session.add(seat)


def _due(ctx: Context, game: Game, row: PhaseRow) -> bool:
    """The phase's deadline plus the game's grace has passed."""
    return _due_at(ctx, game.policy_json, row.deadline)


def _due_at(ctx: Context, policy_json: str | None, deadline: datetime | None) -> bool:
    grace = parse_duration(dict(json.loads(policy_json or "{}")).get("grace", "0h"))
    return deadline is not None and deadline + grace <= ctx.now()


def due_phases(session: Session, ctx: Context) -> list[tuple[Game, PhaseRow]]:
    """Open phases of active games whose deadline (plus grace) has passed."""
    stmt = select(Game, PhaseRow).where(Game.status == "active", PhaseRow.game_id == Game.id,
                                        PhaseRow.seq == Game.phase_seq, col(PhaseRow.resolved_at).is_(None))
    return [(game, row) for game, row in session.exec(stmt) if _due(ctx, game, row)]


#: How many due games one claim looks among (`_claim_next_due`): its cost on the database
#: grows with it, not with the number of games due.
_CHUNK = 16


def _due_ids(session: Session, ctx: Context) -> list[str]:
    """The games whose open phase is due (`due_phases`), by id: the ids and what decides, not the rows."""
    stmt = select(Game.id, Game.policy_json, PhaseRow.deadline).where(
        Game.status == "active", PhaseRow.game_id == Game.id, PhaseRow.seq == Game.phase_seq,
        col(PhaseRow.resolved_at).is_(None), col(PhaseRow.deadline) <= ctx.now())
    return sorted(game_id for game_id, policy, deadline in session.exec(stmt) if _due_at(ctx, policy, deadline))


def _claim_next_due(session: Session, ctx: Context, among: Sequence[str],
                    after: str | None) -> tuple[Game, PhaseRow] | None:
    """The first game of ``among`` after ``after`` (by id) whose open phase is still due, its row
    locked for this transaction: a game another worker is resolving is skipped, not waited for
    (`claims.locking`), and one resolved meanwhile no longer matches."""
    stmt = select(Game, PhaseRow).where(col(Game.id).in_(among), Game.status == "active",
                                        PhaseRow.game_id == Game.id, PhaseRow.seq == Game.phase_seq,
                                        col(PhaseRow.resolved_at).is_(None), col(PhaseRow.deadline) <= ctx.now())
    if after is not None:
        stmt = stmt.where(col(Game.id) > after)
    found = session.exec(claims.locking(session, stmt.order_by(col(Game.id)).limit(1), Game)).first()
    return (found[0], found[1]) if found is not None else None


def resolve_due(ctx: Context) -> int:
    """The deadline job: resolve every phase whose time is up. One transaction per game,
    which finds and locks its game among the next few due in one statement: workers sharing
    a storm each take the next game no other holds, and none tries again the games the
    others resolved. Deadlines inside a player's announced absence move first
    (`pbem.service.absences`)."""
    absences.apply(ctx)
    with ctx.session() as session:
        due = _due_ids(session, ctx)
    count = 0
    for start in range(0, len(due), _CHUNK):
        among, after = due[start:start + _CHUNK], None
        while True:
            with ctx.session() as session:
                found = _claim_next_due(session, ctx, among, after)
                if found is None:
                    break  # the rest of these: resolved or held by others
                game, row = found
                after = game.id
                if not _due(ctx, game, row):
                    continue  # moved meanwhile: the lock goes with the transaction
                log.info("game %s: deadline of phase %d passed; resolving with default orders", game.id, row.seq)
                resolve(session, ctx, game, row)
                session.commit()
                count += 1
    if count:
        ctx.after_commit()
    return count


#: The reminder job's scan (`send_reminders`): each open phase of an active game, with only what
#: says whether a reminder is due. Not the games' rows: reading every game's state and sealed seed
#: every 15 s cost a worker ~0.06 ms of CPU a game (17.7 ms for 300 Corteo games, now 2.2-4.0 ms);
#: the few found due are read whole.
_REMINDER_SCAN = (sa_select(col(Game.id), col(Game.policy_json), col(PhaseRow.id), col(PhaseRow.deadline),
                         col(PhaseRow.opened_at), col(PhaseRow.reminders_sent))
                  .where(col(Game.status) == "active", col(PhaseRow.game_id) == col(Game.id),
                         col(PhaseRow.seq) == col(Game.phase_seq), col(PhaseRow.resolved_at).is_(None),
                         col(PhaseRow.deadline).is_not(None)))


@lru_cache(maxsize=256)
def _reminder_offsets(policy_json: str) -> tuple[timedelta, ...]:
    """A policy's reminder offsets, the earliest (the largest) first; most games share a policy."""
    policy = json.loads(policy_json or "{}")
    return tuple(sorted((parse_duration(r) for r in policy.get("reminders", [])), reverse=True))


def _reminder_due(now: datetime, offsets: Sequence[timedelta], deadline: datetime, opened_at: datetime | None,
                  sent: int) -> int | None:
    """The number of reminders that ought to have gone out by ``now`` when that is more than
    ``sent`` (None: none is due). An offset that falls before the phase opened is never due."""
    due = [i for i, off in enumerate(offsets) if now >= deadline - off and opened_at is not None
           and deadline - off > opened_at]
    if not due or max(due) < sent:
        return None
    return max(due) + 1


def send_reminders(ctx: Context) -> int:
    """Remind the seats that still owe orders, at the policy's offsets before the deadline."""
    sent = 0
    with ctx.session() as session:
        if not claims.once_at_a_time(session, claims.REMINDERS):
            return 0  # another worker sends them now
        now = ctx.now()
        due = [(game_id, phase_id, count) for game_id, policy, phase_id, deadline, opened_at, reminded
               in session.execute(_REMINDER_SCAN)
               if (count := _reminder_due(now, _reminder_offsets(policy), deadline, opened_at, reminded)) is not None]
        for game_id, phase_id, count in due:
            game, row = session.get(Game, game_id), session.get(PhaseRow, phase_id)
            assert game is not None and row is not None and row.deadline is not None
            row.reminders_sent = count
            session.add(row)
            filed = {r.seat for r in store.sheets_of_phase(session, game.id, row.seq)}
            seats = _seat_rows(session, game)
            for name in store.awaiting(row):
                seat = seats.get(name)
                if seat is None or name in filed or seat.status != "active":
                    continue
                for holder in holders.recipients(session, seat):  # each in their language and zone
                    lang, zone = holder.language, zone_of(session, game, holder.address)
                    mailer.queue(session, ctx, to=holder.address,
                                 subject=mailer.subject(game, t("subject.reminder", lang), row.turn, lang),
                                 text=t("notice.reminder", lang, game=game.id, seat=name, turn=row.turn,
                                        deadline=show(row.deadline, zone, lang), address=ctx.config.server.address),
                                 kind="reminder", game=game, seat=name,
                                 attachments=calendar.attachment(ctx, game, row, lang))
                    sent += 1
        session.commit()
    return sent
