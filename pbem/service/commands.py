"""The mail commands besides orders: HELP, STATUS, MAP, HISTORY, ORDERS, SECRET NEW, LEAVE.

Each answer goes to the holder who asked, in that holder's language; SECRET NEW and
LEAVE CONFIRM concern that holder alone (a team-mate's secret and place are untouched).
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any


from pbem.core import registry
from pbem.core.rules import seat_view
from pbem.db.models import Game, Holder, Seat
from pbem.service import holders, mailer, press, store, teams
from pbem.service.context import Context
from pbem.service.history import history_text
from pbem.service.replies import SHORT, quote
from pbem.service.secrets import hash_secret, new_secret
from pbem.service.texts import t, text_of
from pbem.service.timefmt import show, zone_of

if TYPE_CHECKING:
    from pbem.service.inbound import Reply


def topic_help(rules: object, topic: str | None, lang: str) -> str | None:
    """A game's help on one topic (``HELP streets`` in Corteo), when the engine offers it: the
    optional ``help_topic(topic, lang)`` of a rules engine."""
    hook = getattr(rules, "help_topic", None)
    if not topic or hook is None:
        return None
    text = hook(topic, lang)
    return text if isinstance(text, str) else None


def general_help(ctx: Context, lang: str, kind: str | None) -> str:
    if kind:
        name, _, topic = kind.partition(" ")
        try:
            rules = registry.get(name)
            return topic_help(rules, topic, lang) or rules.help(lang)
        except Exception:  # an unknown kind gets the general help
            pass
    titles = ", ".join(f"{k} ({registry.get(k).info.title})" for k in registry.kinds())
    return t("help.general", lang, address=ctx.config.server.address, kinds=titles)


def game_help(ctx: Context, game: Game, lang: str) -> str:
    rules = store.rules_of(game)
    return t("help.game_head", lang, game=game.id, name=game.name, title=rules.info.title) + "\n\n" + rules.help(lang)


def answer(reply: "Reply", game: Game, seat: Seat, holder: Holder, command: str, arg: str | None) -> None:
    handler = {"STATUS": _status, "MAP": _map, "HISTORY": _history, "ORDERS": _orders, "HELP": _help,
               "SECRET NEW": _secret, "SECRET": _secret, "LEAVE": _leave}.get(command)
    if handler is None:
        lang = holder.language
        reply.send(holder.address, t("subject.refused", lang), t("reply.unknown_command", lang, command=quote(command, SHORT)))
        return
    handler(reply, game, seat, holder, arg)


def _help(reply: "Reply", game: Game, seat: Seat, holder: Holder, arg: str | None) -> None:
    lang = holder.language
    words = (arg or "").split()
    if words and words[0] == game.kind:
        words = words[1:]  # HELP corteo streets, inside the game's block
    text = topic_help(store.rules_of(game), " ".join(words), lang)
    reply.send(holder.address, t("subject.help", lang), text or game_help(reply.ctx, game, lang))


def _status(reply: "Reply", game: Game, seat: Seat, holder: Holder, arg: str | None) -> None:
    session, lang = reply.session, holder.language
    phase = store.current_phase(session, game)
    lines = [t("status.head", lang, game=game.id, name=game.name, kind=game.kind, status=t(f"status.{game.status}", lang))]
    if game.status != "finished" and phase is not None:
        filed = {r.seat: r for r in store.sheets_of_phase(session, game.id, phase.seq)}
        label = store.rules_of(game).phase(store.state_of(game)).label
        named = text_of(label, lang, store.rules_of(game).catalog) if label is not None else phase.name
        lines.append(t("status.phase", lang, turn=phase.turn, phase=named,
                       deadline=show(phase.deadline, zone_of(session, game, holder.address), lang)
                       if game.status == "active" else "—"))
        for name in store.awaiting(phase):
            key = "status.seat_in" if name in filed else "status.seat_missing"
            lines.append("  " + t(key, lang, seat=name))
        mine = filed.get(seat.name)
        if mine is not None:
            head = (t("reply.on_file_from", lang, receipt=mine.receipt, sender=mine.sender)
                    if mine.sender.lower() not in ("", holder.address) else t("reply.on_file", lang, receipt=mine.receipt))
            lines += ["", head, *("  " + x for x in mine.canonical.splitlines())]
    else:
        lines.append(t("status.over", lang, outcome=game.outcome_json or "—"))
    lines += ["", t("report.chain", lang, hash=game.head_hash[:16], commitment=game.commitment)]
    if game.seed_revealed:
        lines.append(t("report.seed", lang, seed=game.seed_hex, commitment=game.commitment))
    reply.send(holder.address, t("subject.status", lang), "\n".join(lines), turn=phase.turn if phase else None)


def _map(reply: "Reply", game: Game, seat: Seat, holder: Holder, arg: str | None) -> None:
    rules = store.rules_of(game)
    state = store.state_of(game)
    view = own_view(reply, game, rules, state, seat.name)
    if arg == "zoc":
        view = {**view, "show_zoc": True}  # MAP ZOC: the zones of control drawn, where a game has them
    cache = mailer.MapCache(reply.ctx)
    lang = holder.language
    said = t("report.attached", lang, png=f"{game.id}-map.png", json=f"{game.id}-map.json")  # what is attached
    reply.send(holder.address, t("subject.map", lang), rules.describe(view, lang) + "\n\n" + said,
               attachments=cache.attachments(rules, game, view, "map", lang), turn=view.get("turn"))


def own_view(reply: "Reply", game: Game, rules: Any, state: Any, seat_name: str) -> Any:
    """The seat's view; in a sealed phase, with its own orders on file applied (issue 19.1)."""
    phase_row = store.current_phase(reply.session, game)
    on_file = store.sheet_on_file(reply.session, game.id, phase_row.seq, seat_name) if phase_row else None
    orders = rules.decode_orders(json.loads(on_file.orders_json)) if on_file is not None else ()
    return seat_view(rules, state, seat_name, orders)


def _history(reply: "Reply", game: Game, seat: Seat, holder: Holder, arg: str | None) -> None:
    """HISTORY [turn]: every resolved turn (or one) as the seat may see it (`pbem.service.history`)."""
    lang = holder.language
    if arg == "PRESS":  # HISTORY PRESS: the messages this seat sent or received
        reply.send(holder.address, t("subject.history_press", lang), press.history_text(reply.session, game, seat, lang))
        return
    wanted: int | None = None
    if arg:
        try:
            wanted = int(arg)
        except ValueError:
            reply.send(holder.address, t("subject.refused", lang), t("reply.bad_turn_number", lang, text=quote(arg, SHORT)))
            return
    text = history_text(reply.session, game, seat, lang, wanted)
    if text is None:
        reply.send(holder.address, t("subject.refused", lang), t("reply.no_such_turn", lang, turn=wanted))
        return
    reply.send(holder.address, t("subject.history", lang), text)


def _orders(reply: "Reply", game: Game, seat: Seat, holder: Holder, arg: str | None) -> None:
    rules = store.rules_of(game)
    state = store.state_of(game)
    lang = holder.language
    phase = rules.phase(state)
    body = [t("report.howto", lang, game=game.id, seat=seat.name, turn=phase.turn, address=reply.ctx.config.server.address),
            "", rules.template(state, seat.name, lang)]
    reply.send(holder.address, t("subject.orders", lang), "\n".join(body), turn=phase.turn)


def _secret(reply: "Reply", game: Game, seat: Seat, holder: Holder, arg: str | None) -> None:
    """SECRET NEW: a fresh secret for the sending holder, mailed only to that holder.

    The mail carrying it is the answer to the holder's own authenticated mail and is
    queued outside every limit; the stored secret changes only once it is queued, in the
    same transaction (a new secret that exists nowhere would lock the seat out)."""
    ctx, lang = reply.ctx, holder.language
    secret = new_secret(ctx.entropy)
    if not reply.send(holder.address, t("subject.secret", lang),
                      t("reply.secret", lang, game=game.id, seat=seat.name, secret=secret), unlimited=True):
        return
    holder.secret_hash = hash_secret(secret, ctx.entropy(16))
    reply.session.add(holder)


def _leave(reply: "Reply", game: Game, seat: Seat, holder: Holder, arg: str | None) -> None:
    """LEAVE CONFIRM: the holder leaves (see `teams.leave`). Plain LEAVE only asks."""
    lang = holder.language
    if arg != "CONFIRM":
        mates = [h for h in holders.active(reply.session, seat) if h.id != holder.id]
        text = (t("reply.leave_confirm_team", lang, game=game.id, seat=seat.name,
                  others=holders.labels(reply.session, mates)) if mates
                else t("reply.leave_confirm", lang, game=game.id, seat=seat.name))
        reply.send(holder.address, t("subject.leave", lang), text)
        return
    if game.status == "finished" or seat.status == "abandoned":
        reply.send(holder.address, t("subject.refused", lang), t("reply.leave_nothing", lang, game=game.id))
        return
    key = teams.leave(reply.session, reply.ctx, game, seat, holder)
    reply.send(holder.address, t("subject.leave", lang), t(key, lang, game=game.id, seat=seat.name))
