"""The loop breakers: how many answers one address, and everybody, may get — counted so
that a stranger can never spend what belongs to a player.

Counted from the outbox (the truth of what we sent or are about to send), rows of this
very transaction included (the session flushes before it counts): one address's answers
from its rows, everybody's from the tally of each minute's answers that the statement
queueing an answer keeps (`AnswerTally`), so that a check costs the same however many
answers the hour had; everybody's hour is counted by whole minutes, its first minute
whole (an answer counts for up to a minute more than the hour). Two budgets that never
touch each other, told apart by the outbox kind:

- ``reply``: an answer to a seat's own authenticated mail (right secret, right address,
  every security layer passed). ``limits.per_sender_per_hour`` caps them per address,
  ``limits.global_per_hour`` for everybody: a loop between a player's mailbox and ours
  needs that player's secret, so only the player can spend this budget.
- ``stranger``: an answer to mail that failed authentication or never tried (no GAME
  block, unknown game, HELP, an internal error), sent to a From anybody can forge.
  ``limits.stranger_per_day`` caps them per address (0: strangers get no answer at all),
  ``limits.strangers_per_hour`` for everybody: backscatter is bounded, and a flood of
  forged mail only spends this budget.

Never limited here: security notices (kind ``refusal``, to registered addresses only; they
have their own interval, ``security.refusal_interval``), the mail carrying a new secret
(a lost one would lock the seat out), and what a game sends on its own schedule
(welcomes, reports, reminders, notices).
"""

from __future__ import annotations

import json
import logging
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import ColumnElement, Select, and_, bindparam, delete, func
from sqlmodel import Session, col, select

from pbem.db import direct
from pbem.db.models import AnswerTally, OutboxMail, PressRow
from pbem.service.context import Context

__all__ = ["AUTHENTICATED", "LIMITED_KINDS", "STRANGER", "WINDOW", "STRANGER_WINDOW", "Budget", "allow", "allow_reply",
           "allow_press", "budget", "spent", "under", "answers_in_window", "window_query", "press_in_window",
           "replies_in_window", "minute_of", "forget_tally"]

log = logging.getLogger(__name__)

#: The outbox kind of an answer to a seat's own authenticated mail.
AUTHENTICATED = "reply"
#: The outbox kind of an answer to unauthenticated mail.
STRANGER = "stranger"
#: The outbox kinds that answer a mail (and so could feed a loop).
LIMITED_KINDS = (AUTHENTICATED, STRANGER)
WINDOW = timedelta(hours=1)
STRANGER_WINDOW = timedelta(days=1)


def window_query(ctx: Context, kind: str, window: timedelta, address: str | None = None,
                 cap: int | None = None) -> Select[Any]:
    """The count of `answers_in_window`: for one address read from an outbox index (``kind,
    lower(recipients_json), created_at``) and stopping at ``cap`` rows; for everybody added up
    from the tally's minutes (`AnswerTally`, its key): the cost of a check is bounded by the
    limit or the window's minutes, not by the outbox's size or the hour's volume of mail."""
    if address is None:
        return _window(kind, minute_of(ctx.now() - window), None, cap)
    return _window(kind, ctx.now() - window, _recipient(address), cap)


def minute_of(when: datetime) -> datetime:
    """The minute ``when`` falls in: the tally's key (`AnswerTally.minute`)."""
    return when.replace(second=0, microsecond=0)


def _recipient(address: str) -> str:
    """How the outbox's ``recipients_json`` of a mail to ``address`` reads, lower-cased."""
    return json.dumps([address.strip().lower()]).lower()


def _window(kind: Any, since: Any, recipient: Any, cap: Any) -> Select[Any]:
    """`window_query` of values, or of parameters (`_counts`); with no recipient, everybody's
    tally from the minute ``since`` on (``cap`` unused: a sum of at most the window's minutes)."""
    if recipient is None:
        return select(func.coalesce(func.sum(AnswerTally.n), 0)).where(
            AnswerTally.kind == kind, col(AnswerTally.minute) >= since)
    rows = select(OutboxMail.id).where(OutboxMail.kind == kind, col(OutboxMail.created_at) > since,
                                       func.lower(OutboxMail.recipients_json) == recipient)
    if cap is not None:
        rows = rows.limit(cap)
    return select(func.count()).select_from(rows.subquery())


#: `allow`'s counts, one statement each for the caps it counts (by whether each is per
#: address), built once: the statement cost more to build than to run.
_COUNTS: dict[tuple[bool, ...], Select[Any]] = {}


def _counts(per_address: tuple[bool, ...]) -> Select[Any]:
    stmt = _COUNTS.get(per_address)
    if stmt is None:
        stmt = _COUNTS[per_address] = select(*(
            _window(bindparam(f"kind{i}"), bindparam(f"since{i}"), bindparam(f"recipient{i}") if mine else None,
                    bindparam(f"cap{i}")).scalar_subquery()
            for i, mine in enumerate(per_address)))
    return stmt


def answers_in_window(session: Session, ctx: Context, kind: str, window: timedelta, address: str | None = None,
                      cap: int | None = None) -> int:
    """Answers of ``kind`` queued within ``window``: to ``address`` (case-insensitive), or to anybody;
    counted up to ``cap`` when given (enough to tell whether a limit is reached).
    Every outbox row has one recipient, so one address is one exact match of the column."""
    return int(session.execute(window_query(ctx, kind, window, address, cap)).scalar_one())


def replies_in_window(session: Session, ctx: Context, address: str | None = None) -> int:
    """Answers to authenticated mail in the last hour: to ``address``, or to anybody."""
    return answers_in_window(session, ctx, AUTHENTICATED, WINDOW, address)


@dataclass(frozen=True)
class Budget:
    """The caps an answer of ``kind`` to ``address`` must stay under, each ``(cap, window,
    address or None, what it counts)``: checked by `allow`, or by the very statement that
    queues the answer (`pbem.service.outbox.enqueue`, `under`: one round trip, not two)."""

    kind: str
    address: str
    caps: tuple[tuple[int, timedelta, str | None, str], ...]

    @property
    def closed(self) -> bool:
        """A cap of 0: no answer of this kind at all, nothing to count."""
        return any(cap <= 0 for cap, _, _, _ in self.caps)

    def per_address(self) -> tuple[bool, ...]:
        return tuple(who is not None for _, _, who, _ in self.caps)

    def params(self, ctx: Context) -> dict[str, Any]:
        """The values of `_counts` / `under` for these caps, now."""
        params: dict[str, Any] = {}
        now = ctx.now()
        for i, (cap, window, who, _) in enumerate(self.caps):
            params.update({f"kind{i}": self.kind, f"cap{i}": cap})
            if who is not None:
                params.update({f"since{i}": now - window, f"recipient{i}": _recipient(who)})
            else:  # everybody's: the tally's minutes
                params[f"since{i}"] = minute_of(now - window)
        return params


def budget(ctx: Context, address: str, kind: str) -> Budget | None:
    """The caps on an answer of ``kind`` to ``address`` (None: never limited). The caps after
    one of 0 are left out: that one refuses every answer (`Budget.closed`)."""
    limits = ctx.config.limits
    if kind == AUTHENTICATED:
        caps = ((limits.global_per_hour, WINDOW, None, "answers to authenticated mail in the last hour"),
                (limits.per_sender_per_hour, WINDOW, address, "answers to this player in the last hour"))
    elif kind == STRANGER:
        caps = ((limits.strangers_per_hour, WINDOW, None, "answers to unauthenticated mail in the last hour"),
                (limits.stranger_per_day, STRANGER_WINDOW, address,
                 "answers to unauthenticated mail from this address in the last day"))
    else:
        return None
    kept = []
    for entry in caps:
        kept.append(entry)
        if entry[0] <= 0:
            break
    return Budget(kind, address, tuple(kept))


#: `under`'s conditions, by the caps' kinds (whether each is per address), built once.
_UNDER: dict[tuple[bool, ...], ColumnElement[bool]] = {}


def under(budget: Budget) -> ColumnElement[bool]:
    """True while every cap of ``budget`` has room (its values: `Budget.params`): the WHERE of
    an INSERT … SELECT that queues the answer only then. Counted in the statement's own
    snapshot, so the answers queued earlier in the transaction count, as in `allow`."""
    per_address = budget.per_address()
    cond = _UNDER.get(per_address)
    if cond is None:
        counts = _counts(per_address).selected_columns
        cond = _UNDER[per_address] = and_(*(count < bindparam(f"cap{i}") for i, count in enumerate(counts)))
    return cond


def spent(session: Session, ctx: Context, budget: Budget) -> bool:
    """Is a cap of ``budget`` reached? The first one reached is logged. The caps are counted in
    one statement (rows of this transaction included: the session flushes first)."""
    if budget.closed:
        log.info("%s to %s suppressed: the limit is 0", budget.kind, budget.address)
        return True
    session.flush()  # the answers queued in this transaction count (what the ORM's autoflush did)
    counts = direct.rows(session.connection(), _counts(budget.per_address()), budget.params(ctx))[0]
    for (cap, _, _, what), count in zip(budget.caps, counts):
        if count >= cap:  # the first one reached is the one logged
            log.warning("%s to %s suppressed: %d %s reach the limit (%d)", budget.kind, budget.address, count, what,
                        cap)
            return True
    return False


def allow(session: Session, ctx: Context, address: str, kind: str) -> bool:
    """May an answer of ``kind`` go to ``address`` now? False — and a log line — when its
    budget is spent. Kinds other than `AUTHENTICATED` and `STRANGER` are never limited."""
    caps = budget(ctx, address, kind)
    return caps is None or not spent(session, ctx, caps)


def allow_reply(session: Session, ctx: Context, address: str) -> bool:
    """May an answer to a seat's own authenticated mail go to ``address`` now?"""
    return allow(session, ctx, address, AUTHENTICATED)


def forget_tally(ctx: Context) -> int:
    """The tally's minutes that no cap counts any more (older than `WINDOW` and its first
    minute) deleted; how many rows. Run with the other hourly jobs."""
    with ctx.session() as session:
        gone = session.execute(delete(AnswerTally).where(col(AnswerTally.minute) < minute_of(ctx.now() - WINDOW)))
        session.commit()
    return int(gone.rowcount or 0)  # type: ignore[attr-defined]


def press_in_window(session: Session, ctx: Context, address: str) -> int:
    """Messages between seats (PRESS, `pbem.service.press`) sent by ``address`` in the last hour."""
    stmt = select(func.count()).select_from(PressRow).where(PressRow.sender_address == address.strip().lower(),
                                                            col(PressRow.created_at) > ctx.now() - WINDOW)
    return int(session.exec(stmt).one())


def allow_press(session: Session, ctx: Context, address: str) -> bool:
    """May ``address`` send one more message between seats? Press counts against the player's
    own hourly limit (``limits.per_sender_per_hour``), with the answers to their mail: a seat
    cannot flood the others any more than it can make us answer it."""
    used = press_in_window(session, ctx, address) + replies_in_window(session, ctx, address)
    if used >= ctx.config.limits.per_sender_per_hour:
        log.warning("press from %s held: %d messages and answers in the last hour", address, used)
        return False
    return True
