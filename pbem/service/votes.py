"""DRAW and CONCEDE (PATTA, CEDO) for every game (architecture 2.8), written in a seat's
signed block instead of orders; the lines after the vote, up to END, are a message to the
other seats.

- A draw needs every seat still in play (active: not abandoned, not conceded). A vote is
  recorded, the other seats are told who has voted and who has not; it stands until the
  seat withdraws it with ``DRAW NO`` (``PATTA NO``) or the game ends. A vote stays when the
  turn resolves: players agree to a draw of the game, not of one position (njudge's rule).
- A concession is final: the seat leaves play (``conceded``; its default orders are
  applied from then on, as for an abandoned seat), the others are told; when one seat
  alone is left in play, it wins.
- A game with a vote of its own keeps it: in Kriegspiel DRAW and RESIGN are orders of the
  game (rulebook "VITTORIA"), so the words reach its order parser unchanged there.

Every vote is kept (`pbem.db.models.Vote`) and goes into the game's outcome and archive.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any

from sqlmodel import Session, col, select

from pbem.core.codec import canonical_json
from pbem.db.models import Game, Holder, Seat, Vote
from pbem.mail.envelope import Envelope
from pbem.service import holders, observers, store, turns
from pbem.service.context import Context
from pbem.service.replies import Handled
from pbem.service.texts import t

if TYPE_CHECKING:
    from pbem.service.replies import Reply

log = logging.getLogger(__name__)

DRAW, CONCEDE = "draw", "concede"
#: The vote words, English and Italian.
WORDS = {"draw": DRAW, "patta": DRAW, "concede": CONCEDE, "cedo": CONCEDE}
#: ``DRAW NO``: the draw vote is withdrawn.
WITHDRAW = {"no", "cancel", "annulla"}
#: Games whose own orders are their votes: the words stay orders there.
OWN_VOTES = frozenset({"kriegspiel"})
#: How long a message after a vote may be (lines), as an order sheet's limit keeps mails short.
MESSAGE_LINES = 40


def read(env: Envelope, kind: str) -> tuple[str, bool, list[str]] | None:
    """``(draw|concede, withdrawn, message lines)`` when the block's first line is a vote
    in a game that has no vote of its own; else None (the lines are orders)."""
    if kind in OWN_VOTES or not env.order_lines:
        return None
    words = env.order_lines[0][1].split()
    vote = WORDS.get(words[0].lower().rstrip(":")) if words else None
    if vote is None:
        return None
    withdrawn = vote == DRAW and len(words) == 2 and words[1].lower() in WITHDRAW
    if len(words) > 1 and not withdrawn:
        return None  # "DRAW 3 cards" is an order of some game, not a vote
    message = [text for _, text in env.order_lines[1:MESSAGE_LINES + 1]]
    return vote, withdrawn, message


def in_play(session: Session, game: Game) -> list[Seat]:
    """The seats still playing: neither abandoned nor conceded."""
    return [s for s in store.seats(session, game.id) if s.status == "active"]


def standing(session: Session, game_id: str) -> list[Vote]:
    """Every vote that counts now: draw votes not withdrawn, and the concessions."""
    return list(session.exec(select(Vote).where(Vote.game_id == game_id, col(Vote.withdrawn_at).is_(None))
                             .order_by(col(Vote.id))))


def listing(session: Session, game_id: str) -> list[dict[str, Any]]:
    """Every vote ever cast, for the outcome and the archive. The voter by public handle
    (`pbem.service.results.handle`), never by address: archives are published (the club's site)."""
    from pbem.db.models import Player
    from pbem.service.results import handle

    rows = list(session.exec(select(Vote).where(Vote.game_id == game_id).order_by(col(Vote.id))))
    people = {p.address: handle(p) for p in session.exec(select(Player).where(
        col(Player.address).in_({v.address for v in rows})))} if rows else {}
    return [{"seat": v.seat, "vote": v.kind, "by": people.get(v.address, ""), "phase": v.phase_seq,
             "cast_at": v.cast_at.isoformat() if v.cast_at else None,
             "withdrawn_at": v.withdrawn_at.isoformat() if v.withdrawn_at else None} for v in rows]


def take(reply: "Reply", game: Game, seat: Seat, holder: Holder, env: Envelope) -> Handled | None:
    """Answer a vote in the seat's block; None when the block holds orders instead."""
    found = read(env, game.kind)
    if found is None:
        return None
    vote, withdrawn, message = found
    session, ctx, lang = reply.session, reply.ctx, holder.language
    if game.status == "finished":
        reply.send(holder.address, t("subject.refused", lang), t("reply.finished", lang, game=game.id))
        return Handled("refused", f"{vote} in a finished game", game.id)
    if seat.status != "active":
        reply.send(holder.address, t("subject.refused", lang), t("vote.out_of_play", lang, game=game.id, seat=seat.name))
        return Handled("refused", f"{vote} from a seat out of play", game.id)
    mine = [v for v in standing(session, game.id) if v.seat == seat.name and v.kind == DRAW]
    if vote == DRAW and withdrawn:
        if not mine:
            reply.send(holder.address, t("subject.refused", lang), t("vote.no_draw_to_withdraw", lang, game=game.id))
            return Handled("refused", "no draw vote to withdraw", game.id)
        for v in mine:
            v.withdrawn_at = ctx.now()
            session.add(v)
        session.flush()
        _tell_others(session, ctx, game, seat, holder, "vote.draw_withdrawn", message)
        reply.send(holder.address, t("subject.vote", lang), t("vote.draw_withdrawn_you", lang, game=game.id))
        return Handled("command", "draw withdrawn", game.id)
    if vote == DRAW and mine:
        reply.send(holder.address, t("subject.vote", lang), t("vote.draw_already", lang, game=game.id,
                                                               missing=_missing(session, game)))
        return Handled("command", "draw already voted", game.id)
    phase = store.current_phase(session, game)
    session.add(Vote(game_id=game.id, seat=seat.name, kind=vote, address=holder.address,
                     phase_seq=phase.seq if phase else game.phase_seq, cast_at=ctx.now()))
    session.flush()
    log.info("game %s: seat %s votes %s", game.id, seat.name, vote)
    if vote == CONCEDE:
        seat.status = "conceded"
        session.add(seat)
        session.flush()
        _tell_others(session, ctx, game, seat, holder, "vote.conceded", message)
        reply.send(holder.address, t("subject.vote", lang), t("vote.conceded_you", lang, game=game.id, seat=seat.name))
    else:
        _tell_others(session, ctx, game, seat, holder, "vote.draw", message, missing=_missing(session, game))
        reply.send(holder.address, t("subject.vote", lang), t("vote.draw_you", lang, game=game.id,
                                                               missing=_missing(session, game)))
    settle(session, ctx, game)
    return Handled("command", vote, game.id)


def _missing(session: Session, game: Game) -> str:
    """The seats in play that have not voted for a draw: ``blue, north`` or ``—``."""
    voted = {v.seat for v in standing(session, game.id) if v.kind == DRAW}
    return ", ".join(s.name for s in in_play(session, game) if s.name not in voted) or "—"


def settle(session: Session, ctx: Context, game: Game) -> None:
    """End the game when the votes say so (every seat in play for a draw, one seat left in
    play after concessions), else go on: a phase that waited only for a conceded seat resolves."""
    playing = in_play(session, game)
    voted = {v.seat for v in standing(session, game.id) if v.kind == DRAW}
    conceded = any(v.kind == CONCEDE for v in standing(session, game.id))
    if len(playing) == 1 and conceded:
        end_game(session, ctx, game, "win", [playing[0].name], "concession")
    elif playing and all(s.name in voted for s in playing):
        end_game(session, ctx, game, "draw", [], "agreement")
    elif game.status == "active":
        turns.resolve_if_ready(session, ctx, game)


def end_game(session: Session, ctx: Context, game: Game, result: str, winners: list[str], reason: str) -> None:
    """The game ends outside the rules' own course (votes, the game master's END): the
    outcome with every vote, the dice seed revealed, every seat told in its language."""
    game.status = "finished"
    game.finished_at = ctx.now()
    game.seed_revealed = True
    game.paused_remaining = None
    game.outcome_json = canonical_json({"result": result, "winners": winners, "reason": reason,
                                        "votes": listing(session, game.id)})
    session.add(game)
    log.info("game %s ends: %s %s (%s)", game.id, result, ",".join(winners), reason)
    key = f"vote.end_{result}" if result in ("draw", "win") else "vote.end_abandoned"

    def ended(lang: str) -> str:
        return "\n".join([t(key, lang, game=game.id, winners=", ".join(winners) or "—",
                             reason=t(f"vote.reason_{reason}", lang)), "",
                           t("report.seed", lang, seed=game.seed_hex, commitment=game.commitment)])

    for seat in store.seats(session, game.id):
        holders.tell(session, ctx, game, seat, lambda lang: t("subject.final", lang), ended)
    observers.tell(session, ctx, game, lambda lang: t("subject.final", lang), ended)
    session.flush()


def _tell_others(session: Session, ctx: Context, game: Game, seat: Seat, voter: Holder, key: str,
                 message: list[str], **args: str) -> None:
    """Every other seat hears of the vote, with the voter's message when there is one; so do
    the voter's team-mates (the voter has the reply)."""
    words = "\n".join(message).strip()

    def text(lang: str) -> str:
        body = t(key, lang, game=game.id, seat=seat.name, **args)
        return body + ("\n\n" + t("vote.message", lang, seat=seat.name) + "\n\n" + words if words else "")

    for other in store.seats(session, game.id):
        holders.tell(session, ctx, game, other, lambda lang: t("subject.vote", lang), text, skip=[voter])
