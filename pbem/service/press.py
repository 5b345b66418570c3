"""Press (architecture 2.8): messages between the seats of a game, relayed by the server.

In a seat's signed block, ``PRESS <seat>[,<seat>…]`` or ``PRESS ALL`` (STAMPA … / STAMPA TUTTI)
and the lines up to END are the message. The game's policy says what goes:
``press=none|white|grey|broadcast-only`` (white: signed with the sender's seat; grey: the
addressees read "anonymous", the sender is recorded; broadcast-only: white, to every seat at
once) and ``press_in=all|orders`` (``orders``: not while a sealed or a decision phase waits).

Each addressee gets a mail of its own, in its language, naming the sender's seat (or nobody)
and never an address; every holder of an addressed seat gets it, and the sender's team-mates a
copy. The server adds nothing the sender's seat may not see: the mail is the seat names and the
sender's own words. Press counts against the sender's hourly limit, has a size limit, and a mail
with attachments is refused. It is kept for HISTORY PRESS (to those who sent or received it)
and published in the archive once the game is over.
"""

from __future__ import annotations

import json
import logging
from typing import Any

from sqlmodel import Session, col, select

from pbem.core.rules import seat_label
from pbem.db.models import Game, Holder, PressRow, Seat
from pbem.mail.envelope import Envelope
from pbem.service import holders, limits, mailer, store
from pbem.service.replies import SHORT, Handled, Reply, quote
from pbem.service.texts import t, text_of

log = logging.getLogger(__name__)

NONE, WHITE, GREY, BROADCAST = "none", "white", "grey", "broadcast-only"
#: The outbox kind of a relayed message.
KIND = "press"
#: The longest message body, in characters (a letter, not a file).
MAX_BODY = 4_000
#: How many messages HISTORY PRESS shows (the newest).
MAX_HISTORY = 100
#: PRESS ALL / STAMPA TUTTI.
_ALL = {"all", "tutti"}


def mode(game: Game) -> str:
    """``press`` (default white)."""
    return str(json.loads(game.policy_json or "{}").get("press", WHITE))


def when(game: Game) -> str:
    """``press_in`` (default all)."""
    return str(json.loads(game.policy_json or "{}").get("press_in", "all"))


def addressees(arg: str | None) -> tuple[bool, list[str]]:
    """``red,blue`` / ``red, blue`` / ``ALL`` → (to everyone, seat names as written, lower case)."""
    words = [w.strip().lower() for w in (arg or "").replace(",", " ").split() if w.strip()]
    if any(w in _ALL for w in words):
        return True, []
    return False, list(dict.fromkeys(words))


def send(reply: Reply, game: Game, seat: Seat, holder: Holder, env: Envelope) -> Handled:
    """PRESS from an authenticated holder: checked, stored, relayed; the sender told what went
    where, or why nothing did (and then nothing is stored or relayed)."""
    session, ctx, lang = reply.session, reply.ctx, reply.lang
    assert env.command is not None
    rules = store.rules_of(game)

    def refuse(key: str, note: str, **args: Any) -> Handled:
        reply.send(holder.address, t("subject.refused", lang), t(key, lang, game=game.id, **args))
        return Handled("refused", f"press: {note}", game.id)

    if game.status == "finished":
        return refuse("reply.finished", "game finished")
    how = mode(game)
    if how == NONE:
        return refuse("press.off", "press is off in this game")
    phase = rules.phase(store.state_of(game))
    if when(game) == "orders" and (phase.sealed or phase.decision):
        label = text_of(phase.label, lang, rules.catalog) if phase.label is not None else phase.name
        return refuse("press.not_now", f"not during {phase.name}", phase=label)
    if reply.mail.attachments:
        return refuse("press.attachment", "attachments", count=len(reply.mail.attachments))
    everyone, names = addressees(env.command.arg)
    seats = {s.name: s for s in store.seats(session, game.id)}
    if not everyone and not names:
        return refuse("press.to_missing", "no addressee", seats=", ".join(seats))
    unknown = [n for n in names if n not in seats]
    if unknown:
        return refuse("press.no_seat", f"no seat {quote(unknown[0], SHORT)}", seat=quote(unknown[0], SHORT),
                      seats=", ".join(seats))
    if seat.name in names:
        return refuse("press.self", "to oneself")
    if how == BROADCAST and not everyone:
        return refuse("press.broadcast_only", "broadcast only")
    body = "\n".join(text for _, text in env.order_lines).strip("\n")
    if not body.strip():
        return refuse("press.empty", "empty")
    if len(body) > MAX_BODY:
        return refuse("press.too_long", f"{len(body)} characters", limit=MAX_BODY, size=len(body))
    if not limits.allow_press(session, ctx, holder.address):
        return refuse("press.too_many", "over the hourly limit", limit=ctx.config.limits.per_sender_per_hour)
    targets = [s for name, s in seats.items() if name != seat.name] if everyone else [seats[n] for n in names]
    grey = how == GREY
    row = PressRow(game_id=game.id, turn=phase.turn, sender_seat=seat.name, sender_address=holder.address,
                   to_json=json.dumps([s.name for s in targets]), everyone=everyone, mode=GREY if grey else WHITE,
                   body=body, created_at=ctx.now())
    session.add(row)
    session.flush()
    count = 0
    for target in targets:
        for other in holders.recipients(session, target):
            olang = other.language
            sender = t("press.anonymous", olang) if grey else seat_label(rules, seat.name, olang)
            text = "\n".join([t("press.head", olang, game=game.id, name=game.name, turn=phase.turn, sender=sender,
                                to=_to(rules, row, olang)), "", body, "", t("press.foot", olang, game=game.id)])
            mailer.queue(session, ctx, to=other.address, subject=mailer.subject(game, t("subject.press", olang, sender=sender),
                                                                               None, olang),
                         text=text, kind=KIND, game=game, seat=target.name)
            count += 1
    for mate in holders.active(session, seat):  # the sender's team-mates: a copy, the sender named
        if mate.id == holder.id:
            continue
        mlang = mate.language
        text = "\n".join([t("press.copy_head", mlang, game=game.id, sender=holders.label(session, holder),
                            to=_to(rules, row, mlang), mode=t(f"press.mode_{row.mode}", mlang)), "", body])
        mailer.queue(session, ctx, to=mate.address, subject=mailer.subject(game, t("subject.press_copy", mlang), None, mlang),
                     text=text, kind=KIND, game=game, seat=seat.name)
    log.info("game %s: press from %s to %s (%s)", game.id, seat.name, ",".join(s.name for s in targets), row.mode)
    reply.send(holder.address, t("subject.press_sent", lang),
               t("press.sent", lang, game=game.id, to=_to(rules, row, lang), count=count,
                 mode=t(f"press.mode_{row.mode}", lang)))
    return Handled("command", f"press to {len(targets)} seats", game.id)


def _to(rules: Any, row: PressRow, lang: str) -> str:
    if row.everyone:
        return t("press.everyone", lang)
    return ", ".join(seat_label(rules, name, lang) for name in json.loads(row.to_json))


def _of_seat(session: Session, game_id: str, seat_name: str) -> list[PressRow]:
    rows = session.exec(select(PressRow).where(PressRow.game_id == game_id).order_by(col(PressRow.id)))
    return [r for r in rows if r.sender_seat == seat_name or seat_name in json.loads(r.to_json)]


def history_text(session: Session, game: Game, seat: Seat, lang: str) -> str:
    """HISTORY PRESS: the messages the seat sent or received, the newest `MAX_HISTORY`; a grey
    message's sender stays "anonymous" to its addressees here too."""
    rules = store.rules_of(game)
    rows = _of_seat(session, game.id, seat.name)
    lines = [t("press.history_head", lang, game=game.id, seat=seat_label(rules, seat.name, lang), count=len(rows))]
    if not rows:
        lines += ["", t("press.history_none", lang)]
    if len(rows) > MAX_HISTORY:
        lines += ["", t("press.history_more", lang, count=len(rows) - MAX_HISTORY)]
    for row in rows[-MAX_HISTORY:]:
        mine = row.sender_seat == seat.name
        sender = (seat_label(rules, row.sender_seat, lang) if mine or row.mode == WHITE
                  else t("press.anonymous", lang))
        lines += ["", t("press.history_line", lang, turn=row.turn, sender=sender, to=_to(rules, row, lang),
                        mode=t(f"press.mode_{row.mode}", lang))]
        lines += ["    " + line for line in row.body.splitlines()]
    return "\n".join(lines)


def published(session: Session, game: Game) -> list[dict[str, Any]]:
    """The game's press for its archive, once it is over (empty before): seats, never
    addresses; a grey message stays anonymous."""
    if game.status != "finished":
        return []
    rows = session.exec(select(PressRow).where(PressRow.game_id == game.id).order_by(col(PressRow.id)))
    return [{"turn": r.turn, "from": r.sender_seat if r.mode == WHITE else None, "to": json.loads(r.to_json),
             "everyone": r.everyone, "mode": r.mode, "text": r.body} for r in rows]
