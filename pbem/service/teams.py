"""Teams: a seat held by several players (Corteo and Block Mania are played by teams).

Any holder's order mail replaces the sheet on file; the sender gets the echo, each
team-mate a short notice naming the sender and the receipt, with the orders now on file.
LEAVE CONFIRM takes only the sender off the seat; the seat is abandoned when its last
holder leaves. The game master adds and removes holders of a running game
(`pbem game seat add|remove`); a new holder gets a welcome with a secret of their own,
and a player added to an abandoned seat brings it back into play. `pbem game seat reset`
gives a seat's player(s) a new secret and a fresh welcome (a lost or leaked secret).
"""

from __future__ import annotations

import logging

from sqlmodel import Session

from pbem.core.i18n import normalise_language
from pbem.db.models import Game, Holder, Seat, SheetRow
from pbem.errors import GameStateError, NotFoundError, UserError
from pbem.service import games, holders, mailer, store, turns
from pbem.service.context import Context
from pbem.service.secrets import hash_secret, new_secret
from pbem.service.texts import t

log = logging.getLogger(__name__)


def tell_orders_filed(session: Session, ctx: Context, game: Game, seat: Seat, sender: Holder,
                      filed: turns.Filed | SheetRow, replaced: str | None, turn: int) -> int:
    """The sender's team-mates learn what is now on file for their seat, and from whom;
    ``replaced``: the receipt of the sheet it replaces, if any. The sender's label is looked up
    for the first team-mate told: a seat of one player (most seats) tells nobody."""
    labelled: list[str] = []

    def who() -> str:
        if not labelled:
            labelled.append(holders.label(session, sender))
        return labelled[0]

    orders = ["  " + line for line in (filed.canonical.splitlines() or ["—"])]

    def text(lang: str) -> str:
        lines = [t("notice.team_orders", lang, game=game.id, seat=seat.name, turn=turn, sender=who(),
                   receipt=filed.receipt)]
        if replaced is not None:
            lines.append(t("notice.team_orders_replace", lang, receipt=replaced))
        return "\n".join([*lines, "", *orders, "", t("notice.team_orders_howto", lang)])

    return holders.tell(session, ctx, game, seat, lambda lang: t("subject.team_orders", lang, sender=who()), text,
                        turn=turn, skip=[sender])


def leave(session: Session, ctx: Context, game: Game, seat: Seat, holder: Holder) -> str:
    """LEAVE CONFIRM from ``holder``: it leaves the seat; the last one out abandons it.
    Returns the key of the answer to the leaver."""
    mates = [h for h in holders.active(session, seat) if h.id != holder.id]
    holder.status, holder.left_at = holders.LEFT, ctx.now()
    session.add(holder)
    session.flush()
    if not mates:
        turns.abandon(session, ctx, game, seat, reason="left")
        return "reply.left"
    log.info("game %s: %s left the seat %s; %d player(s) hold it on", game.id, holder.address, seat.name, len(mates))
    who = holders.label(session, holder)
    holders.tell(session, ctx, game, seat, lambda lang: t("subject.team_changed", lang),
                 lambda lang: t("notice.holder_left", lang, game=game.id, seat=seat.name, sender=who,
                                others=holders.labels(session, mates)))
    return "reply.left_team"


def _seat(session: Session, game: Game, name: str) -> Seat:
    seat = store.seat(session, game.id, name)
    if seat is None:
        names = ", ".join(s.name for s in store.seats(session, game.id))
        raise NotFoundError(f"no seat {name!r} in {game.id} (seats: {names})")
    return seat


def add(ctx: Context, game_id: str, seat_name: str, spec: games.HolderSpec) -> str:
    """The game master adds a player to a seat of a running game; the player is welcomed
    with a secret of their own, the seat's other holders are told."""
    with ctx.session() as session:
        game = store.get_game(session, game_id, lock=True)
        if game.status == "finished":
            raise GameStateError(f"game {game.id} is finished")
        seat = _seat(session, game, seat_name)
        current = holders.active(session, seat)
        address = spec.address.strip().lower()
        if any(h.address == address for h in current):
            raise UserError(f"{address} already holds the seat {seat.name} in {game.id}")
        lang = normalise_language(spec.language or ctx.config.server.language)
        holder, secret = holders.make(session, ctx, seat, address, lang)
        revived = seat.status == "abandoned"
        if revived:  # a replacement player: the seat is played again from now on
            seat.status, seat.misses = "active", 0
            session.add(seat)
        games.welcome(session, ctx, game, seat, holder, secret, store.current_phase(session, game),
                      store.state_of(game))
        who = holders.label(session, holder)
        for other in store.seats(session, game.id):
            if other.id == seat.id:
                holders.tell(session, ctx, game, other, lambda lang: t("subject.team_changed", lang),
                             lambda lang: t("notice.holder_joined", lang, game=game.id, seat=seat.name, sender=who),
                             skip=[holder])
            elif revived:
                holders.tell(session, ctx, game, other, lambda lang: t("subject.team_changed", lang),
                             lambda lang: t("notice.seat_back", lang, game=game.id, seat=seat.name, sender=who))
        session.commit()
        log.info("game %s: %s added to the seat %s%s", game.id, address, seat.name,
                 " (back in play)" if revived else "")
        return t("gm.holder_added", "en", game=game.id, seat=seat.name, address=address, language=lang)


def remove(ctx: Context, game_id: str, seat_name: str, address: str) -> str:
    """The game master takes a player off a seat. A seat keeps at least one holder: to
    replace its only player, add the new one first."""
    with ctx.session() as session:
        game = store.get_game(session, game_id, lock=True)
        seat = _seat(session, game, seat_name)
        current = holders.active(session, seat)
        want = address.strip().lower()
        holder = next((h for h in current if h.address == want), None)
        if holder is None:
            held = ", ".join(h.address for h in current) or "nobody"
            raise NotFoundError(f"{want} does not hold the seat {seat.name} in {game.id} (held by {held})")
        if len(current) == 1:
            raise GameStateError(f"{want} is the only player of the seat {seat.name}: add the new player first "
                                 f"(pbem game seat add {game.id} {seat.name} EMAIL)")
        holder.status, holder.left_at = holders.REMOVED, ctx.now()
        session.add(holder)
        session.flush()
        mates = [h for h in current if h.id != holder.id]
        who = holders.label(session, holder)
        holders.tell(session, ctx, game, seat, lambda lang: t("subject.team_changed", lang),
                     lambda lang: t("notice.holder_removed", lang, game=game.id, seat=seat.name, sender=who,
                                    others=holders.labels(session, mates)))
        lang = holder.language  # told once more, without a reply address: the seat is no longer theirs
        mailer.queue(session, ctx, to=holder.address, subject=mailer.subject(game, t("subject.team_changed", lang)),
                     text=t("notice.you_were_removed", lang, game=game.id, seat=seat.name), kind="notice", game=game)
        session.commit()
        log.info("game %s: %s removed from the seat %s", game.id, want, seat.name)
        return t("gm.holder_removed", "en", game=game.id, seat=seat.name, address=want)


def reset(ctx: Context, game_id: str, seat_name: str, address: str | None = None) -> list[str]:
    """The game master's repair for a lost or leaked secret: the seat's player (``address``)
    or every player of the seat gets a new secret and a fresh welcome carrying it. The
    welcome is never held back by a limit, and the old secret stops working in the same
    transaction that queues it."""
    with ctx.session() as session:
        game = store.get_game(session, game_id, lock=True)
        if game.status == "finished":
            raise GameStateError(f"game {game.id} is finished")
        seat = _seat(session, game, seat_name)
        current = holders.recipients(session, seat)
        if address is not None:
            want = address.strip().lower()
            current = [h for h in current if h.address == want]
            if not current:
                held = ", ".join(h.address for h in holders.recipients(session, seat)) or "nobody"
                raise NotFoundError(f"{want} does not hold the seat {seat.name} in {game.id} (held by {held})")
        if not current:
            raise GameStateError(f"the seat {seat.name} in {game.id} has no player to give a secret to")
        phase, state = store.current_phase(session, game), store.state_of(game)
        done = []
        for holder in current:
            secret = new_secret(ctx.entropy)
            holder.secret_hash = hash_secret(secret, ctx.entropy(16))
            session.add(holder)
            games.welcome(session, ctx, game, seat, holder, secret, phase, state)
            done.append(t("gm.secret_reset", "en", game=game.id, seat=seat.name, address=holder.address))
        session.commit()
        log.info("game %s: new secret for the seat %s (%s)", game.id, seat.name, ", ".join(h.address for h in current))
        return done
