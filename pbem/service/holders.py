"""Who holds a seat: one player, or a team of several (the platform capability "teams").

Each holder has an own address, secret, language and reply token. Every mail for the
seat (welcome, reports, reminders, notices) is written once per holder, in the holder's
language, with the holder's Reply-To; answers to a mail go only to the holder who sent
it. Nothing here ever puts one holder's secret or token into another holder's mail.

A holder is ``active`` (acts for the seat, gets its mail), ``left`` (sent LEAVE CONFIRM)
or ``removed`` (by the game master). When every holder of a seat has left (the seat is
abandoned), the last one to leave keeps receiving its mail and may still use the
commands, as a lone player always could; a player the game master adds takes over.
"""

from __future__ import annotations

from datetime import datetime, timezone
from typing import Callable, Iterable

from sqlmodel import Session, col, select

from pbem.db.models import Game, Holder, OutboxMail, Player, Seat
from pbem.service import mailer, store, threads, tokens
from pbem.service.context import Context
from pbem.service.secrets import hash_secret, new_secret

ACTIVE, LEFT, REMOVED = "active", "left", "removed"

#: A text in a holder's language: ``lambda lang: t(key, lang, ...)``.
Text = Callable[[str], str]


#: ``session.info`` key of the holders read in the session's transaction: (the transaction,
#: the holders by seat id) (`_of_seat`).
_SEATS = "pbem.holders.of_seat"


def _of_seat(session: Session, seat: Seat) -> list[Holder]:
    """The seat's holders by id, read once per transaction (as `Roster` reads a game's for a
    batch): one order mail asks who may act for the seat (`find`, from identify) and then tells
    the team-mates (`tell`). The rows are the session's own objects, so a status set since is
    seen; holders are made only by `make`, which forgets the seat's list; a commit or rollback
    forgets them all (a rolled-back row must not be answered)."""
    if seat.id is None:
        return []
    txn = session.get_transaction()
    held = session.info.get(_SEATS)
    if txn is not None and held is not None and held[0] is txn and seat.id in held[1]:
        return list(held[1][seat.id])
    rows = list(session.exec(select(Holder).where(Holder.seat_id == seat.id).order_by(col(Holder.id))))
    txn = session.get_transaction()  # begun by the query, if none was
    if held is None or held[0] is not txn:
        fresh: dict[int, list[Holder]] = {}
        held = session.info[_SEATS] = (txn, fresh)
    held[1][seat.id] = rows
    return list(rows)


def keep(session: Session, of_seat: dict[int, list[Holder]]) -> None:
    """Holders the caller read in this transaction with their seats (every holder of each seat
    in ``of_seat``, by id), kept as `_of_seat` keeps them: an order mail reads its game's seats
    with their holders in one statement (`pbem.service.inbound`)."""
    txn = session.get_transaction()
    held = session.info.get(_SEATS)
    if held is None or held[0] is not txn:
        fresh: dict[int, list[Holder]] = {}
        held = session.info[_SEATS] = (txn, fresh)
    held[1].update(of_seat)


def everyone(session: Session, seat: Seat) -> list[Holder]:
    """Every holder the seat ever had, whatever became of them."""
    return _of_seat(session, seat)


def active(session: Session, seat: Seat) -> list[Holder]:
    """The seat's active holders, first come first."""
    return [h for h in _of_seat(session, seat) if h.status == ACTIVE]


def recipients(session: Session, seat: Seat) -> list[Holder]:
    """Who receives the seat's mail: its active holders; when all have left (the seat is
    abandoned), the last one to leave, as a lone player kept the reports after LEAVE."""
    return _recipients(_of_seat(session, seat))


def _recipients(rows: list[Holder]) -> list[Holder]:
    """`recipients` among the seat's holders ``rows`` (by id)."""
    current = [h for h in rows if h.status == ACTIVE]
    if current:
        return current
    gone = [h for h in rows if h.status == LEFT]
    last = max(gone, key=lambda h: (h.left_at or datetime.min.replace(tzinfo=timezone.utc), h.id or 0), default=None)
    return [last] if last is not None else []


def of_game(session: Session, game_id: str) -> dict[int, list[Holder]]:
    """Active holders of every seat of a game, by seat id."""
    out: dict[int, list[Holder]] = {}
    stmt = select(Holder).where(Holder.game_id == game_id, Holder.status == ACTIVE).order_by(col(Holder.id))
    for row in session.exec(stmt):
        out.setdefault(row.seat_id, []).append(row)
    return out


def find(session: Session, seat: Seat, address: str | None) -> Holder | None:
    """The holder who may act for ``seat`` from this address: one of its `recipients`.
    (The players who left an abandoned seat may still ask for STATUS or HISTORY.)"""
    want = (address or "").strip().lower()
    return next((h for h in recipients(session, seat) if want and h.address == want), None)


def in_game(session: Session, game_id: str, address: str) -> list[Holder]:
    """The active holders in a game with this address (one, unless a player holds two seats)."""
    return list(session.exec(select(Holder).where(Holder.game_id == game_id, Holder.status == ACTIVE,
                                                  Holder.address == address.strip().lower())))


def first(session: Session, seat_id: int) -> Holder | None:
    """The seat's first holder, whatever became of it: the owner of the seat's reply token
    from before teams (that token was only ever sent to the seat's one address)."""
    return session.exec(select(Holder).where(Holder.seat_id == seat_id).order_by(col(Holder.id))).first()


def label(session: Session, holder: Holder) -> str:
    """How other players read a holder: ``Anna <anna@example.org>``, or the address."""
    player = session.get(Player, holder.player_id)
    return f"{player.name} <{holder.address}>" if player is not None and player.name else holder.address


def labels(session: Session, rows: Iterable[Holder]) -> str:
    return ", ".join(label(session, h) for h in rows) or "—"


def make(session: Session, ctx: Context, seat: Seat, address: str, language: str) -> tuple[Holder, str]:
    """Make ``address`` an active holder of ``seat`` with a fresh secret; returns the row and
    the secret (to be shown once, in the welcome mail). A former holder gets the row back."""
    addr = address.strip().lower()
    player = store.player_for(session, addr, language)
    assert player.id is not None and seat.id is not None
    row = session.exec(select(Holder).where(Holder.seat_id == seat.id, Holder.address == addr)).first()
    if row is None:
        row = Holder(seat_id=seat.id, game_id=seat.game_id, player_id=player.id, address=addr)
    secret = new_secret(ctx.entropy)
    row.secret_hash = hash_secret(secret, ctx.entropy(16))
    row.language, row.status, row.joined_at, row.left_at = language, ACTIVE, ctx.now(), None
    session.add(row)
    session.flush()
    if _SEATS in session.info:
        session.info[_SEATS][1].pop(seat.id, None)  # the seat's holders changed: read again
    return row, secret


def tell(session: Session, ctx: Context, game: Game, seat: Seat, subject: Text, text: Text, *,
         kind: str = "notice", turn: int | None = None, skip: Iterable[Holder] = (),
         roster: Roster | None = None) -> int:
    """Queue one mail per recipient of the seat, each in its holder's language and in the
    seat's thread (a player of two seats has one per seat); returns how many. ``skip``:
    holders who get a mail of their own instead (the sender of orders). ``roster``: the
    game's holders read once for several seats' mails (`Roster`)."""
    skipped = {h.id for h in skip}
    sent = 0
    for holder in roster.recipients(seat) if roster is not None else recipients(session, seat):
        if holder.id in skipped:
            continue
        lang = holder.language
        mailer.queue(session, ctx, to=holder.address, subject=mailer.subject(game, subject(lang), turn, lang),
                     text=text(lang), kind=kind, game=game, seat=seat.name, roster=roster)
        sent += 1
    return sent


class Roster:
    """Every holder of one game with its seat, read in one query for a batch of mails about the
    game (a turn's notices, its reports): each seat's `recipients`, each mail's thread root
    (`threads.root_for`), whether the root is used (`threads.taken`) and its Reply-To
    (`tokens.reply_to_for`) come from it, the same answers without a few queries a mail
    (issue 17, the deadline storm). Made for one batch in one transaction: a holder added
    after it was read is not in it, and the mails of the batch go through it (`mailer.queue`),
    so that the roots they use are known."""

    def __init__(self, session: Session, game: Game, domain: str) -> None:
        self.session, self.game, self.domain = session, game, domain
        self._of_seat: dict[int, list[Holder]] = {}
        self._at: dict[str, list[tuple[Holder, Seat]]] = {}
        stmt = select(Holder, Seat).where(Holder.game_id == game.id, Holder.seat_id == Seat.id).order_by(col(Holder.id))
        for holder, seat in session.exec(stmt):
            self._of_seat.setdefault(holder.seat_id, []).append(holder)
            self._at.setdefault(holder.address, []).append((holder, seat))
        self._used: set[str] | None = None

    def recipients(self, seat: Seat) -> list[Holder]:
        return _recipients(self._of_seat.get(seat.id, [])) if seat.id is not None else []

    def root(self, address: str, seat_name: str | None = None) -> str | None:
        """`threads.root_for` of a mail to ``address`` (about ``seat_name``)."""
        rows = self._at.get(address.strip().lower(), [])
        if seat_name is not None:
            rows = [r for r in rows if r[1].name == seat_name]
        if len(rows) != 1 or rows[0][0].id is None:
            return None
        holder, seat = rows[0]
        assert holder.id is not None
        return threads.root_id(self.game, seat.name, holder.id, self.domain)

    def taken(self, root: str) -> bool:
        """`threads.taken`: the game's roots already queued are read once, at the first question."""
        if self._used is None:
            roots = {threads.root_id(self.game, seat.name, holder.id, self.domain)
                     for rows in self._at.values() for holder, seat in rows if holder.id is not None}
            self._used = set(self.session.exec(select(OutboxMail.message_id).where(
                col(OutboxMail.message_id).in_(sorted(roots))))) if roots else set()
        return root in self._used

    def use(self, root: str) -> None:
        """A mail of the batch was queued with ``root`` as its Message-ID."""
        self.taken(root)
        assert self._used is not None
        self._used.add(root)

    def reply_to(self, ctx: Context, to: str) -> str | None:
        """`tokens.reply_to_for` a mail to ``to``."""
        if not ctx.config.security.reply_tokens:
            return None
        rows = [h for h, _ in self._at.get(to.lower(), []) if h.status != REMOVED]
        return tokens.reply_address(self.session, ctx, rows[0]) if len(rows) == 1 else None
