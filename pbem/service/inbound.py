"""One inbound mail, one transaction: record it under its dedupe key, check who
sent it, apply the orders or answer the command, queue the replies, commit.

A mail seen twice (a re-flag after a crash, a UIDVALIDITY change, the same
message delivered twice) finds its dedupe key taken and changes nothing.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any, NamedTuple

from sqlalchemy.exc import IntegrityError
from sqlalchemy import and_, bindparam, update
from sqlalchemy import select as sa_select
from sqlmodel import Session, col, select

from pbem.core import registry
from pbem.db import direct
from pbem.db.models import Game, Holder, InboundMail, PhaseRow, Player, Seat, SheetRow
from pbem.errors import DrawingRefused, NotFoundError
from pbem.mail.bounce import is_bounce
from pbem.mail.classify import machine_reason
from pbem.mail.envelope import Envelope, parse_envelope
from pbem.mail.parse import IncomingMail, read_mail
from pbem.faults import checkpoint
from pbem.core.rules import echo_orders, seat_label, seat_view
from pbem.service import atrest, bounces, commands, holders, identity, mailer, store, teams, turns
from pbem.service import club, master, press, votes
from pbem.service import receipt as receipts
from pbem.service.budget import Reading
from pbem.service.context import Context
from pbem.service.plurals import tn
from pbem.service.replies import SHORT, Handled, Reply, line_label, quote
from pbem.service.texts import t, text_of
from pbem.service.timefmt import show, zone_of

log = logging.getLogger(__name__)

#: How far a player's clock may be behind ours before a mail counts as written for an earlier turn.
CLOCK_SLACK = timedelta(minutes=10)
#: How far before its receipt a mail's own Date may place it among the seat's mails: two
#: mails that overtook each other on the way keep the order they were written in, but no
#: sender's clock moves a mail further than this (a Date in the future counts as the receipt).
ORDER_WINDOW = timedelta(minutes=2)
#: How many diagnostics one refusal lists; the rest are counted.
MAX_DIAGNOSTICS = 50


def handle(ctx: Context, raw: bytes, receipt: int | None = None, received_at: datetime | None = None,
           reading: Reading | None = None) -> Handled:
    """Process one raw mail exactly once. ``receipt``: the row `pbem.service.receipt.receive`
    wrote before the work started; the mail's own record is that row. ``received_at``: that
    row's time, as the caller knows it (`receipt.Receipt`, `queue.Claimed`): the row is then
    filled in and finished by one UPDATE after the work, which its dedupe key's unique index
    checks (a mail processed already has its work rolled back), instead of one UPDATE before
    the work and one after. Where no map may be drawn (`pbem.render.refuse`), a mail that
    would draw one raises `DrawingRefused` with nothing of its handling kept (one
    transaction: rolled back). ``reading``: what the mail reader read of these bytes under
    the mail's time budget (`pbem.service.budget.Reading`: a person's mail, its envelope),
    not read again here."""
    mail = reading.mail if reading is not None else read_mail(raw)
    kept = atrest.redact_mail(raw, mail.text)  # kept without its secrets; processed whole
    with ctx.session() as session:
        fill: dict[str, Any] = {}
        if receipt is not None and received_at is not None:  # filled in with the outcome, below
            row: OnRecord | None = OnRecord(receipt, received_at)
            fill = {f"new_{k}": v for k, v in _fields(mail, kept).items()}
        else:
            try:
                row = _on_record(session, ctx, mail, kept, receipt)
            except IntegrityError:  # the mail's own key is on record: it was processed already
                session.rollback()
                row = None
        if row is None:
            return _duplicate(ctx, session, receipt)
        try:
            result = _process(session, ctx, mail, row, raw, reading)
        except DrawingRefused:  # on the event loop: nothing of it kept, handled again in a thread
            session.rollback()
            raise
        except Exception as exc:  # a bug must not lose the mail: keep it, say so, go on
            session.rollback()
            log.exception("inbound mail %s from %s failed", mail.message_id, mail.sender)
            return _record_failure(ctx, mail, raw, exc, receipt)
        outcome = {"row_id": row.id, "new_status": result.status, "new_note": result.note[:2000],
                   "new_game_id": result.game_id}
        try:
            finished = direct.rows(session.connection(), _FILL_FINISH if fill else _FINISH, {**outcome, **fill})
        except IntegrityError:  # filled in only now: the key was on record, its work is undone
            session.rollback()
            return _duplicate(ctx, session, receipt)
        if fill and not finished:  # the receipt row is gone: handled again as a mail without one
            session.rollback()
            return handle(ctx, raw, receipt)
        checkpoint("inbound.before-commit")
        session.commit()
    ctx.after_commit()
    return Handled(result.status, result.note, result.game_id, row.id, result.seat)


@dataclass(frozen=True)
class OnRecord:
    """The mail's row as its processing needs it: no ORM object is made for it, the row is
    written twice (filled in, then finished) with one statement each."""

    id: int
    received_at: datetime | None


_INBOUND = InboundMail.__table__  # type: ignore[attr-defined]
#: The receipt row filled in with what the mail says (built once, run as core on the session's
#: connection, not through the ORM's bulk-update path: see `_on_record`).
_FILL = (update(_INBOUND).where(_INBOUND.c.id == bindparam("row_id"))
         .values({name: bindparam(f"new_{name}") for name in ("dedupe_key", "message_id", "sender", "subject", "size", "raw")})
         .returning(_INBOUND.c.received_at))
#: The mail's row finished: what became of it (`handle`, in the mail's own transaction).
_FINISH = (update(_INBOUND).where(_INBOUND.c.id == bindparam("row_id"))
           .values({name: bindparam(f"new_{name}") for name in ("status", "note", "game_id")}))
#: The receipt row filled in and finished at once (`handle`, its time known to the caller).
_FILL_FINISH = (update(_INBOUND).where(_INBOUND.c.id == bindparam("row_id"))
                .values({name: bindparam(f"new_{name}") for name in ("dedupe_key", "message_id", "sender", "subject",
                                                                     "size", "raw", "status", "note", "game_id")})
                .returning(_INBOUND.c.id))


def _fields(mail: IncomingMail, kept: bytes) -> dict[str, Any]:
    """What the mail says, as its row keeps it."""
    return {"dedupe_key": mail.dedupe_key, "message_id": mail.message_id or "", "sender": mail.sender or "",
            "subject": mail.subject[:500], "size": mail.size, "raw": kept}


def _on_record(session: Session, ctx: Context, mail: IncomingMail, kept: bytes, receipt: int | None) -> OnRecord | None:
    """The mail's row, under its own dedupe key (flushed: a key on record already raises
    IntegrityError); None when the key is found taken. The receipt row is filled in by one
    UPDATE … RETURNING, the key's unique index being the duplicate check."""
    fields = _fields(mail, kept)
    if receipt is not None:
        filled = direct.rows(session.connection(), _FILL, {"row_id": receipt, **{f"new_{k}": v for k, v in fields.items()}})
        if filled:  # the row as it now is, known without reading it
            return OnRecord(receipt, filled[0][0])
    # no receipt row: the mail's own key, then a new row
    if session.exec(select(InboundMail.id).where(InboundMail.dedupe_key == mail.dedupe_key)).first() is not None:
        return None
    row = InboundMail(received_at=ctx.now(), **fields)
    session.add(row)
    session.flush()
    assert row.id is not None
    return OnRecord(row.id, row.received_at)


def _duplicate(ctx: Context, session: Session, receipt: int | None) -> Handled:
    receipts.forget(session, receipt)
    session.commit()
    return Handled("duplicate", "already processed")


def _record_failure(ctx: Context, mail: IncomingMail, raw: bytes, exc: Exception, receipt: int | None = None) -> Handled:
    with ctx.session() as session:
        row = session.get(InboundMail, receipt) if receipt is not None else None
        if row is None:
            row = InboundMail(dedupe_key=mail.dedupe_key, received_at=ctx.now())
        row.dedupe_key, row.message_id, row.sender = mail.dedupe_key, mail.message_id or "", mail.sender or ""
        row.subject, row.size, row.raw = mail.subject[:500], mail.size, atrest.redact_mail(raw, mail.text)
        row.status, row.note = "error", f"{type(exc).__name__}: {exc}"[:2000]
        session.add(row)
        try:
            session.flush()
        except IntegrityError:  # the mail's key was on record (`handle` fills the row in last): a duplicate
            session.rollback()
            return _duplicate(ctx, session, receipt)
        if mail.sender and not machine_reason(mail, raw=raw):
            Reply(session, ctx, mail).send(mail.sender, t("subject.error", "en"), t("reply.internal_error", "en"))
        session.commit()
        return Handled("error", row.note, None, row.id)


def _language(session: Session, ctx: Context, address: str) -> str:
    player = store.player_at(session, address)
    return player.language if player else ctx.config.server.language


def _process(session: Session, ctx: Context, mail: IncomingMail, row: OnRecord, raw: bytes,
             reading: Reading | None = None) -> Handled:
    """``raw``: the mail as it came (the row keeps a redacted copy); ``reading``: the mail
    reader's (`handle`): a person's mail, its envelope read."""
    reason = machine_reason(mail, raw=raw) if reading is None else None
    problem = mail.sender_problem
    if reason and not (problem and reason == "no-sender"):  # a From of two addresses is a person's mistake
        if is_bounce(mail):
            reason = f"{reason}; {bounces.record(session, ctx, mail, raw)}"
        log.info("ignored machine mail from %s: %s", mail.sender, reason)
        return Handled("ignored", reason)
    if not mail.sender or problem:
        return _no_single_sender(session, ctx, mail, problem)
    env = reading.envelope if reading is not None else parse_envelope(mail.text)
    game: Game | None = None
    seats: list[Seat] = []
    phase_sheets: list[OnFile] = []
    if env.club is None and env.game is not None:
        try:  # orders read its phase; the sender's player (its language) comes in the same statement,
            # and for a seat's mail the game's seats, their holders and the phase's sheets too
            if env.seat:
                game, seats, phase_sheets = read_game(session, env.game, mail.sender)
            else:
                game = store.get_game(session, env.game, lock=True, phase=True, player=mail.sender)
        except NotFoundError:
            game = None
    reply = Reply(session, ctx, mail, lang=_language(session, ctx, mail.sender))
    lang = reply.lang
    if env.club is not None:  # GAMES, JOIN, CONFIRM, ABSENCE, SET …: the sender known by address only
        return club.answer(reply, env.club)
    if env.game is None:
        if env.command is not None and env.command[0] == "HELP":
            reply.send(mail.sender, t("subject.help", lang), commands.general_help(ctx, lang, env.command[1]))
            return Handled("command", "help")
        reply.send(mail.sender, t("subject.no_block", lang), t("reply.no_block", lang, address=ctx.config.server.address,
                                                                 kinds=", ".join(registry.kinds())))
        return Handled("refused", "no GAME block")
    if game is None:
        reply.send(mail.sender, t("subject.refused", lang), t("reply.no_game", lang, game=quote(env.game, SHORT)))
        return Handled("refused", f"no game {quote(env.game, SHORT)}")
    reply.game = game
    if env.master:  # GM <secret> instead of SEAT: the game master's block
        return master.handle(reply, game, env, raw)
    if env.command is not None and env.command[0] == "HELP" and not env.seat:
        reply.send(mail.sender, t("subject.help", lang), commands.game_help(ctx, game, lang))
        return Handled("command", "help", game.id)
    seat = _named(seats, env.seat)  # the seats read with the game: the orders ask whether all are in
    holder, refusal = identity.identify(ctx, session, mail, env, seat, raw=raw)
    if refusal is not None:
        return identity.refuse(reply, game, env, seat, refusal)
    assert seat is not None and holder is not None
    bounces.clear_bouncing(session, holder.address)  # the player writes again: the address works
    reply.lang = lang = holder.language
    reply.trusted = True  # from here on, answers spend this player's budget, never a stranger's
    reply.seat = seat.name
    if env.errors:
        lines = [f"  {line_label(line, lang)}: {text_of(m, lang)}" for line, m in env.errors[:MAX_DIAGNOSTICS]]
        if len(env.errors) > MAX_DIAGNOSTICS:
            lines.append("  " + tn("reply.more_diagnostics", len(env.errors) - MAX_DIAGNOSTICS, lang,
                                  shown=MAX_DIAGNOSTICS))
        if any(line for line, _ in env.errors):
            lines.append(t("reply.counting", lang))
        text = t("reply.envelope_problems", lang, game=game.id) + "\n" + "\n".join(lines)
        reply.send(holder.address, t("subject.refused", lang), text)
        return Handled("refused", "envelope problems", game.id)
    if env.command is not None and env.command.name == "PRESS":  # a message to other seats, relayed
        return press.send(reply, game, seat, holder, env)
    if env.command is not None:
        commands.answer(reply, game, seat, holder, env.command[0], env.command[1])
        return Handled("command", env.command[0].lower(), game.id)
    voted = votes.take(reply, game, seat, holder, env)  # DRAW / CONCEDE instead of orders
    if voted is not None:
        return voted
    if seat.status == "conceded":
        reply.send(holder.address, t("subject.refused", lang), t("vote.out_of_play", lang, game=game.id, seat=seat.name))
        return Handled("refused", "the seat has conceded", game.id)
    return _orders(reply, game, seats, phase_sheets, seat, holder, env, row)


class OnFile(NamedTuple):
    """A sheet on file for the game's current phase (not superseded), as an order mail reads it:
    the columns its answers quote, no ORM object (`turns.file_sheet` supersedes it by id)."""

    id: int
    seat: str
    receipt: str
    sender: str
    mail_date: datetime | None


_SHEET = SheetRow.__table__  # type: ignore[attr-defined]
#: The game with its current phase and the player at the sender's address (as `store.get_game`
#: reads them), its seats, each seat's holders and the phase's sheets on file: one statement, a
#: row a seat, holder and sheet, the game's columns on each (the ORM makes one object of them),
#: run after the game's lock (`store.lock_game`). The sheets are joined on the game's phase and
#: the seat's name.
_GAME_TABLE = (sa_select(Game, PhaseRow, Player, Seat, Holder, _SHEET.c.id, _SHEET.c.seat, _SHEET.c.receipt,
                         _SHEET.c.sender, _SHEET.c.mail_date)
               .where(col(Game.id) == bindparam("game_id"))
               .outerjoin(PhaseRow, and_(col(PhaseRow.game_id) == Game.id, col(PhaseRow.seq) == Game.phase_seq))
               .outerjoin(Player, col(Player.address) == bindparam("address"))
               .outerjoin(Seat, col(Seat.game_id) == Game.id)
               .outerjoin(Holder, col(Holder.seat_id) == Seat.id)
               .outerjoin(_SHEET, and_(_SHEET.c.game_id == Game.id, _SHEET.c.phase_seq == Game.phase_seq,
                                       _SHEET.c.seat == Seat.name, _SHEET.c.superseded.is_(False)))
               .order_by(col(Seat.id), col(Holder.id), _SHEET.c.id)
               .options(*store.UNREAD))  # type: ignore[arg-type]


def read_game(session: Session, game_id: str, address: str) -> tuple[Game, list[Seat], list[OnFile]]:
    """The game, locked for the transaction (`store.get_game` with its phase and the player at
    ``address``), its seats (`store.seats`) and its current phase's sheets on file, by id
    (`store.sheets_of_phase`): the lock (`store.lock_game`), then one statement; each seat's
    holders come with them and are kept for the transaction (`holders.keep`: who may act for
    the seat, the answer's thread). Every sheet is a seat's: joined on the seat's name.
    NotFoundError: no such game."""
    addr, key = address.strip().lower(), game_id.strip().lower()
    locked = store.lock_game(session, key)
    rows = session.execute(_GAME_TABLE, {"game_id": key, "address": addr}).all() if locked else []
    if not rows:
        raise NotFoundError(f"no game with id {game_id!r}")
    game, phase, player = rows[0][:3]
    store.keep_read(session, game, phase, addr, player)
    seats: list[Seat] = []
    of_seat: dict[int, list[Holder]] = {}
    sheets: dict[int, OnFile] = {}
    for _, _, _, seat, holder, sheet_id, *sheet in rows:
        if seat is None:
            continue
        if not seats or seats[-1] is not seat:
            seats.append(seat)
        mine = of_seat.setdefault(seat.id, []) if seat.id is not None else []
        if holder is not None and (not mine or mine[-1] is not holder):
            mine.append(holder)
        if sheet_id is not None:
            sheets[sheet_id] = OnFile(sheet_id, *sheet)
    holders.keep(session, of_seat)
    return game, seats, [sheets[i] for i in sorted(sheets)]


def _named(seats: list[Seat], name: str | None) -> Seat | None:
    """`store.seat` among the game's seats."""
    want = (name or "").strip().lower()
    return next((s for s in seats if s.name == want), None) if want else None


def _no_single_sender(session: Session, ctx: Context, mail: IncomingMail, problem: str | None) -> Handled:
    """A From that names no one, or more than one address: nobody can be answered, but a
    mail for a seat is refused by the rule and reported to the seat's registered players
    (`identity.refuse`, ``several-from``); anything else is recorded and ignored."""
    env = parse_envelope(mail.text)
    game = session.get(Game, env.game) if env.game else None
    seat = store.seat(session, game.id, env.seat) if game is not None and env.seat else None
    if game is None or seat is None:
        return Handled("ignored", f"no single sender address ({problem or 'from-missing'})")
    reply = Reply(session, ctx, mail, game=game)
    return identity.refuse(reply, game, env, seat, "several-from")


def _orders(reply: Reply, game: Game, seats: list[Seat], phase_sheets: list[OnFile], seat: Seat, holder: Holder,
            env: Envelope, row: OnRecord) -> Handled:
    """Orders from one holder: every answer goes to that holder's address alone; when the
    seat is a team, the other holders are told what is now on file and who sent it. The game's
    ``seats`` and the phase's sheets are read once, under the game's lock: the sheet on file,
    the one it supersedes and whether every seat is in come from them."""
    session, ctx, lang = reply.session, reply.ctx, reply.lang
    zone = zone_of(session, game, holder.address)  # times in the player's own zone, and in UTC
    if game.status == "finished":
        reply.send(holder.address, t("subject.refused", lang), t("reply.finished", lang, game=game.id))
        return Handled("refused", "game finished", game.id)
    rules = store.rules_of(game)
    state = store.state_of(game)
    phase = rules.phase(state)
    phase_row = store.current_phase(session, game)
    assert phase_row is not None
    named = text_of(phase.label, lang, rules.catalog) if phase.label is not None else phase.name  # as the report says it
    if env.turn is not None and env.turn != phase.turn:
        reply.send(holder.address, t("subject.refused", lang),
                   t("reply.wrong_turn", lang, game=game.id, turn=env.turn, current=phase.turn, phase=named,
                     seats=_seats(rules, phase.awaiting, lang)), turn=phase.turn)
        return Handled("refused", f"orders for turn {env.turn}, current turn {phase.turn}", game.id)
    if seat.name not in phase.awaiting:
        reply.send(holder.address, t("subject.refused", lang),
                   t("reply.not_awaited", lang, game=game.id, seat=seat_label(rules, seat.name, lang), turn=phase.turn,
                     phase=named, seats=_seats(rules, phase.awaiting, lang)), turn=phase.turn)
        return Handled("refused", "not awaited", game.id)
    if not env.order_lines:
        reply.send(holder.address, t("subject.refused", lang),
                   t("reply.no_orders", lang, game=game.id, turn=phase.turn))
        return Handled("refused", "no orders", game.id)
    written = order_time(reply.mail.date, row.received_at or reply.ctx.now())
    earlier = [r for r in phase_sheets if r.seat == seat.name]  # by id: the seat's last is on file
    on_file = earlier[-1] if earlier else None
    dated = reply.mail.date
    if env.turn is None and dated is not None and phase_row.opened_at is not None \
            and dated < phase_row.opened_at - CLOCK_SLACK:
        # Written before this turn began: a late delivery meant for an earlier turn.
        reply.send(holder.address, t("subject.refused", lang),
                   t("reply.stale", lang, game=game.id, turn=phase.turn, written=show(dated, zone, lang),
                     opened=show(phase_row.opened_at, zone, lang)), turn=phase.turn)
        return Handled("refused", f"written before turn {phase.turn} began", game.id)
    if on_file is not None and on_file.mail_date is not None and written < on_file.mail_date:
        # Two mails overtook each other: the one written later stays on file.
        reply.send(holder.address, t("subject.refused", lang),
                   t("reply.older", lang, game=game.id, turn=phase.turn, written=show(written, zone, lang),
                     filed=show(on_file.mail_date, zone, lang), receipt=on_file.receipt), turn=phase.turn)
        return Handled("refused", f"older than the orders on file ({on_file.receipt})", game.id)
    text = order_text(env)
    sheet = rules.parse_orders(state, seat.name, text)
    if not sheet.ok:
        reply.send(holder.address, t("subject.orders_refused", lang),
                   diagnostics_text(rules, sheet, lang, game, phase.turn, seat.name, on_file.receipt if on_file else None),
                   turn=phase.turn)
        return Handled("refused", f"{sum(d.is_error for d in sheet.diagnostics)} errors", game.id)
    filed = turns.file_sheet(session, ctx, game, rules, phase_row.seq, sheet, raw_text=text, source="mail",
                             sender=reply.mail.sender or "", inbound_id=row.id, mail_date=written, earlier=earlier)
    body = [t("reply.accepted", lang, game=game.id, turn=phase.turn, seat=seat_label(rules, seat.name, lang),
              receipt=filed.receipt)]
    if on_file is not None and on_file.sender.lower() not in ("", holder.address):
        body.append(t("reply.replaces_other", lang, receipt=on_file.receipt, sender=on_file.sender))
    elif on_file is not None:
        body.append(t("reply.replaces", lang, receipt=on_file.receipt))
    echoed = echo_orders(rules, filed.canonical, text, lang)  # in the words the player wrote (MUOVI stays MUOVI)
    body += ["", *("  " + line for line in (echoed.splitlines() or ["—"])), ""]
    warnings = [d for d in sheet.diagnostics if not d.is_error]
    if warnings:
        body.append(t("reply.warnings", lang))
        body += [f"  {line_label(d.line, lang)}: {text_of(d.message, lang, rules.catalog)}" for d in warnings]
        body.append("")
    ready = game.status != "paused" and turns.ready(session, game, phase_row, seats={s.name: s for s in seats},
                                                    filed={r.seat for r in phase_sheets} | {seat.name})
    if game.status == "paused":
        body.append(t("reply.paused", lang, game=game.id))
    elif not ready:
        body.append(t("reply.waiting", lang, deadline=show(phase_row.deadline, zone, lang)))
    else:
        body.append(t("reply.resolving", lang))
    maps = []
    if phase.sealed and hasattr(rules, "preview"):
        # A sealed sheet is shown to its seat on its own view (issue 19.1): the others' stay hidden.
        view = seat_view(rules, state, seat.name, sheet.orders)
        maps = mailer.MapCache(ctx).attachments(rules, game, view, f"{seat.name}-orders", lang)
    reply.send(holder.address, t("subject.orders_accepted", lang), "\n".join(body), turn=phase.turn,
               attachments=maps)
    teams.tell_orders_filed(session, ctx, game, seat, holder, filed, on_file.receipt if on_file else None, phase.turn)
    session.flush()
    if ready:  # nothing filed since: a phase still waiting for others has nothing to resolve
        turns.resolve_if_ready(session, ctx, game)
    return Handled("orders", f"receipt {filed.receipt}", game.id, seat=seat.name)


def order_time(dated: datetime | None, received: datetime) -> datetime:
    """Where a mail stands among the seat's mails: its receipt, moved back to the sender's
    Date only within `ORDER_WINDOW` (a Date in the future, or none, is the receipt)."""
    if dated is None or dated >= received:
        return received
    return max(dated, received - ORDER_WINDOW)


def order_text(env: Envelope) -> str:
    """The order lines at their own line numbers, so diagnostics name the mail's lines."""
    if not env.order_lines:
        return ""
    last = max(n for n, _ in env.order_lines)
    lines = [""] * last
    for n, text in env.order_lines:
        lines[n - 1] = text
    return "\n".join(lines)


def _seats(rules: Any, seats: Any, lang: str) -> str:
    """The seats a phase awaits, as players read them in ``lang``."""
    return ", ".join(seat_label(rules, s, lang) for s in seats) or "—"


def diagnostics_text(rules: Any, sheet: Any, lang: str, game: Game, turn: int, seat: str, receipt: str | None) -> str:
    """A refusal: the errors, counted; then the warnings, labelled as such and not counted
    (alone they would not have stopped the orders); lines as ``line 4 of your orders``."""
    errors = [d for d in sheet.diagnostics if d.is_error]
    warnings = [d for d in sheet.diagnostics if not d.is_error]
    out = [tn("reply.rejected", len(errors), lang, game=game.id, turn=turn, seat=seat_label(rules, seat, lang)), ""]
    if any(d.line for d in sheet.diagnostics):
        out += [t("reply.counting", lang), ""]
    room = MAX_DIAGNOSTICS
    for head, group in (("reply.errors", errors), ("reply.warnings_too", warnings)):
        if not group:
            continue
        out.append(tn(head, len(group), lang))
        shown, room = group[:room], max(room - len(group), 0)
        for d in shown:
            label = line_label(d.line, lang) if d.line else t("reply.sheet", lang)
            out.append(f"  {label}: {quote(d.text)}".rstrip(": ") if d.text else f"  {label}")
            out.append("      " + text_of(d.message, lang, rules.catalog))
            if d.suggestion is not None:
                out.append("      " + t("reply.suggestion", lang, text=text_of(d.suggestion, lang, rules.catalog)))
        if len(group) > len(shown):
            out.append("  " + tn("reply.more_diagnostics", len(group) - len(shown), lang, shown=len(shown)))
        out.append("")
    out.append(t("reply.on_file", lang, receipt=receipt) if receipt else t("reply.none_on_file", lang))
    return "\n".join(out)


def record_oversized(ctx: Context, uid: int, uidvalidity: int, size: int, head: bytes | None = None) -> Handled:
    """A mail above the size limit is never downloaded (see `pbem.service.receipt`)."""
    return receipts.record_oversized(ctx, uid, uidvalidity, size, head)
