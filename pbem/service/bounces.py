"""Bounces of our own mail: matched to the outbox, recorded, never answered.

A bounce (see ``pbem.mail.bounce``) is matched to the outbox row of the mail that came
back by that mail's Message-ID — which only the recipient's servers ever saw, so a
forged "bounce" cannot name another player's mail. The row keeps when and why it
bounced. On a permanent failure the player's address is marked as bouncing and the game
master (``server.game_master``, when set) gets one notice per address per day, however
many mails bounce. A bounce that matches none of our mails is only noted (the inbound row
keeps it). Nothing is ever sent to the bounce's sender.
"""

from __future__ import annotations

import json
import logging
from datetime import timedelta

from sqlmodel import Session, col, select

from pbem.db.models import Game, Holder, OutboxMail, Player, Seat
from pbem.mail.bounce import Bounce, BouncedRecipient, parse_bounce
from pbem.mail.parse import IncomingMail
from pbem.service import mailer, store
from pbem.service.context import Context
from pbem.service.texts import t
from pbem.service.timefmt import show

__all__ = ["NOTICE_INTERVAL", "clear_bouncing", "match", "record"]

log = logging.getLogger(__name__)

#: At most one notice to the game master per bouncing address in this time.
NOTICE_INTERVAL = timedelta(days=1)


def record(session: Session, ctx: Context, mail: IncomingMail, raw: bytes | None = None) -> str:
    """Record one bounce (the caller has already decided it is one and answers nothing).

    Returns a one-line note for the inbound row. Changes, in the caller's transaction:
    the matched outbox row (``bounced_at``, ``bounce_status``, ``bounce_diagnostic``), on a
    permanent failure the player (``bouncing_since``, ``bounce_notified_at``) and at most
    one notice to the game master per address per day.
    """
    found = parse_bounce(mail, raw)
    if found is None:
        log.info("bounce from %s: nothing in it names a recipient or one of our mails", mail.sender)
        return "bounce: unreadable (no recipient, no original Message-ID)"
    row = match(session, ctx, found)
    if row is None:
        log.info("bounce from %s matches none of our mails: %s", mail.sender, _describe(found))
        return f"bounce unmatched: {_describe(found)}"
    recipient = _recipient_of(row)
    failure = _failure_for(found, recipient)
    if failure is None:
        return f"delivery report for outbox {row.id}: " + ", ".join(
            f"{r.address} {r.action}" for r in found.recipients)
    now = ctx.now()
    status = f"{failure.action} {failure.status}".strip()
    notes = [f"bounce of outbox {row.id} ({row.kind} to {recipient}): {status}"]
    named = {failure.address, failure.original}
    if recipient not in named:
        notes.append(f"the report names {failure.address}")
    if failure.permanent or not row.bounce_status.startswith("failed"):
        row.bounced_at = now
        row.bounce_status = status[:200]
        row.bounce_diagnostic = failure.diagnostic[:2000]
        session.add(row)
    if not failure.permanent:
        notes.append("transient: still being retried")
        log.info("outbox %s to %s delayed: %s", row.message_id, recipient, status)
        return "; ".join(notes)
    log.warning("outbox %s to %s bounced: %s %s", row.message_id, recipient, status, failure.diagnostic[:200])
    player = session.exec(select(Player).where(Player.address == recipient).with_for_update()).first()
    if player is None:
        notes.append("not a player's address")
        return "; ".join(notes)
    if player.bouncing_since is None:
        player.bouncing_since = now
        notes.append("player marked as bouncing")
    game_master = ctx.config.server.game_master.strip()
    if not game_master or game_master.lower() == recipient:
        pass  # nobody to tell, or the game master's own address: never a notice about it to it
    elif player.bounce_notified_at is not None and now - player.bounce_notified_at < NOTICE_INTERVAL:
        notes.append("game master already told today")
    else:
        _tell_game_master(session, ctx, game_master, row, player, failure)
        player.bounce_notified_at = now
        notes.append("game master told")
    session.add(player)
    return "; ".join(notes)


def match(session: Session, ctx: Context, found: Bounce) -> OutboxMail | None:
    """The outbox row of the mail that bounced, by its Message-ID (candidates in order).

    One query for all the candidates (a forged bounce may name fifty), then the first
    candidate that names a row wins."""
    domain = ctx.config.server.domain
    wanted: dict[str, int] = {}  # every spelling of a candidate → its rank
    for rank, candidate in enumerate(found.message_ids):
        local, _, host = candidate.strip("<>").rpartition("@")
        wanted.setdefault(candidate, rank)
        if local and host == domain.lower():
            wanted.setdefault(f"<{local}@{domain}>", rank)
    if not wanted:
        return None
    rows = session.exec(select(OutboxMail).where(col(OutboxMail.message_id).in_(sorted(wanted)))
                        .order_by(col(OutboxMail.id))).all()
    best: OutboxMail | None = None
    for row in rows:
        if best is None or wanted[row.message_id] < wanted[best.message_id]:
            best = row
    return best


def clear_bouncing(session: Session, address: str) -> bool:
    """The address seems to work again (its player wrote to us, or the game master fixed
    it): forget that it bounced. Returns whether it was marked. The once-a-day notice
    clock is kept: a full mailbox can still send, and its next bounce marks it again
    without telling the game master twice in a day."""
    player = store.player_at(session, address)
    if player is None or player.bouncing_since is None:
        return False
    player.bouncing_since = None
    session.add(player)
    log.info("address %s no longer marked as bouncing", player.address)
    return True


def _recipient_of(row: OutboxMail) -> str:
    try:
        recipients = json.loads(row.recipients_json)
    except ValueError:
        recipients = []
    return str(recipients[0]).strip().lower() if recipients else ""


def _failure_for(found: Bounce, recipient: str) -> BouncedRecipient | None:
    failures = found.failures
    for failure in failures:
        if recipient in (failure.address, failure.original):
            return failure
    # one recipient per outbox row: a report about another name is a forward or an alias
    return failures[0] if failures else None


def _describe(found: Bounce) -> str:
    who = ", ".join(f"{r.address} {r.action} {r.status}".strip() for r in found.recipients) or "no recipient"
    return f"{who}; original {found.message_id or 'unknown'}"


def _tell_game_master(session: Session, ctx: Context, to: str, row: OutboxMail, player: Player,
                      failure: BouncedRecipient) -> None:
    lang = ctx.config.server.language
    zone = ctx.config.server.timezone
    game = session.get(Game, row.game_id) if row.game_id else None
    held = session.exec(select(Seat).join(Holder, col(Holder.seat_id) == col(Seat.id))
                        .where(Holder.address == player.address, Holder.status == "active")
                        .order_by(col(Seat.id))).all()
    who = ", ".join(f"{s.name} @ {s.game_id}" for s in held) or player.name or "—"
    text = t("notice.bounce", lang, address=player.address, who=who,
             status=f"{failure.action} {failure.status}".strip(), subject=row.subject, kind=row.kind,
             queued=show(row.created_at, zone, lang),
             diagnostic=failure.diagnostic or t("notice.bounce_unknown", lang),
             since=show(player.bouncing_since, zone, lang))
    mailer.queue(session, ctx, to=to, subject=mailer.subject(game, t("subject.bounce", lang, address=player.address),
                                                             lang=lang),
                 text=text, kind="notice", game=game)
