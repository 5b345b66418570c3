"""Observers (architecture 2.8): addresses that follow a game they do not play in.

``WATCH <game>`` / ``UNWATCH <game>`` by mail (OSSERVA / SMETTI), confirmed like every club
request by a one-time code mailed back to the address (a forged From can make us mail a third
party one code an hour, never a stream of reports); ``pbem game watch ID EMAIL`` for the game
master. The game's policy says who may: ``observers=open`` (anybody confirmed), ``approved``
(the game master's ``pbem game watch`` lets them in), ``none``. Players of the game may not
watch it: an observer's mail must not become a second view for a seat.

An observer receives every report built from the spectator view (``rules.view(state, None)``,
each game's one redaction point): the public position only, the secret rolls sealed until the
seed is out, no orders, no press. ``observer_delay=N`` holds the reports back: the observer sees
turn T when turn T+N resolves (default 0, or 1 for a game that declares hidden state), so that
what an observer could tell a player is already stale. The final report carries the seed.
"""

from __future__ import annotations

import json
import logging
from typing import TYPE_CHECKING, Any, Callable, Sequence

from sqlmodel import Session, col, select

from pbem.core.dice import Roll
from pbem.core.rules import Rules, roll_notes
from pbem.db.models import Game, Holder, Observer, PhaseRow, RollRow
from pbem.errors import NotFoundError, UserError
from pbem.service import mailer, store
from pbem.service.context import Context
from pbem.service.plurals import listed, tn
from pbem.service.replies import SHORT, Handled, Reply, quote
from pbem.service.texts import t

if TYPE_CHECKING:
    from pbem.db.models import SignupRequest
    from pbem.service.reports import Draft

log = logging.getLogger(__name__)

OPEN, APPROVED, NONE = "open", "approved", "none"
ACTIVE, PENDING, LEFT = "active", "pending", "left"
#: The kinds of club request (`pbem.service.signup`) a code confirms.
WATCH, UNWATCH = "watch", "unwatch"
#: The outbox kind of an observer's report and notices.
KIND = "observer"
#: How many observers a game takes (each report is one mail per observer).
MAX_OBSERVERS = 200


def hidden_state(rules: Rules) -> bool:
    """Does the game declare hidden state? A sealed phase that hides units (Kriegspiel's
    deployment) or rolls whose values would show a hand or a pile (Block Mania's shuffles)."""
    info = rules.info
    return bool(info.sealed_hides_units or info.secret_rolls)


def policy_of(game: Game) -> dict[str, Any]:
    return dict(json.loads(game.policy_json or "{}"))


def mode(game: Game) -> str:
    """``observers=open|approved|none`` (default open)."""
    return str(policy_of(game).get("observers", OPEN))


def delay(game: Game, rules: Rules | None = None) -> int:
    """``observer_delay`` in turns; by default 1 where the game declares hidden state, else 0."""
    value = policy_of(game).get("observer_delay")
    if value is not None:
        return int(value)
    return 1 if hidden_state(rules or store.rules_of(game)) else 0


def of_game(session: Session, game_id: str, status: str = ACTIVE) -> list[Observer]:
    return list(session.exec(select(Observer).where(Observer.game_id == game_id, Observer.status == status)
                             .order_by(col(Observer.id))))


def find(session: Session, game_id: str, address: str) -> Observer | None:
    """The address's row for the game (active or pending), if any."""
    return session.exec(select(Observer).where(Observer.game_id == game_id, Observer.address == address.strip().lower(),
                                               col(Observer.status).in_((ACTIVE, PENDING)))).first()


def watched(session: Session, address: str) -> list[Game]:
    """The games ``address`` watches (for GAMES), unfinished ones first come first."""
    stmt = (select(Game).where(Observer.address == address.strip().lower(), Observer.status == ACTIVE,
                               Observer.game_id == Game.id, Game.status != "finished").order_by(col(Game.created_at)))
    return list(session.exec(stmt))


def plays_in(session: Session, game: Game, address: str) -> bool:
    """Does ``address`` hold (or has it held) a seat of the game, or a seat taken at sign-up?"""
    addr = address.strip().lower()
    if session.exec(select(Holder.id).where(Holder.game_id == game.id, Holder.address == addr)).first() is not None:
        return True
    from pbem.service import signup

    return any(addr in signup.entry_addresses(e) for e in signup.entries(session, game.id) if e.status == "taken")


def _refusal(session: Session, game: Game, address: str) -> str | None:
    """Why ``address`` may not watch ``game`` (a key under ``observer.``), or None."""
    if game.status == "finished":
        return "finished"
    if mode(game) == NONE:
        return "closed"
    if plays_in(session, game, address):
        return "player"
    if len(of_game(session, game.id)) >= MAX_OBSERVERS:
        return "full"
    return None


def _first_seen(session: Session, game: Game) -> int:
    """Where a new observer's reports start: after what the delay already lets observers see."""
    rows = [r for r in store.phases(session, game.id) if r.resolved_at is not None]
    return visible_upto(rows, rows[-1].turn if rows else 0, delay(game), False)


def visible_upto(resolved: Sequence[PhaseRow], last_turn: int, turns: int, final: bool) -> int:
    """The last phase an observer may see once turn ``last_turn`` has resolved: the phases of
    turn ``last_turn - turns`` and before; everything when the game is over; -1 for none."""
    seqs = [r.seq for r in resolved if final or r.turn <= last_turn - turns]
    return max(seqs, default=-1)


# --- by mail ---------------------------------------------------------------------------------


def _refuse(reply: Reply, key: str, note: str, where: Game | None = None, **args: object) -> Handled:
    reply.game = where or reply.game
    reply.send(reply.mail.sender or "", t("subject.refused", reply.lang), t(key, reply.lang, **args))
    return Handled("refused", note, where.id if where is not None else None)


def request(reply: Reply, game_id: str, watch: bool) -> Handled:
    """WATCH / UNWATCH <game>: checked now, then a code mailed to the sender (`signup.ask`)."""
    from pbem.service import signup

    session, lang = reply.session, reply.lang
    address = (reply.mail.sender or "").strip().lower()
    game = session.get(Game, game_id)
    command = "WATCH" if watch else "UNWATCH"
    if game is None:
        return _refuse(reply, "observer.no_game", f"{command.lower()}: no game {quote(game_id, SHORT)}",
                       game=quote(game_id, SHORT))
    if not watch:
        if find(session, game.id, address) is None:
            return _refuse(reply, "observer.not_watching", f"unwatch {game.id}: not watching", game, game=game.id)
        return signup.ask(reply, UNWATCH, game, "", "", t("observer.what_unwatch", lang, game=game.id, name=game.name))
    why = _refusal(session, game, address)
    if why is not None:
        return _refuse(reply, f"observer.refused.{why}", f"watch {game.id}: {why}", game, game=game.id)
    if find(session, game.id, address) is not None:
        return _refuse(reply, "observer.already", f"watch {game.id}: already", game, game=game.id)
    return signup.ask(reply, WATCH, game, "", "", t("observer.what_watch", lang, game=game.id, name=game.name))


def apply(reply: Reply, req: "SignupRequest") -> Handled:
    """The code came back: WATCH or UNWATCH acts, checked once more (the game may have moved on)."""
    from pbem.service import signup

    session, ctx, lang = reply.session, reply.ctx, reply.lang
    game = session.get(Game, req.game_id) if req.game_id else None
    req.status = signup.DONE
    session.add(req)
    if game is None:
        return _refuse(reply, "observer.no_game", "watch: the game is gone", game=req.game_id or "—")
    reply.game = game
    row = find(session, game.id, req.address)
    if req.kind == UNWATCH:
        if row is None:
            return _refuse(reply, "observer.not_watching", f"unwatch {game.id}: not watching", game, game=game.id)
        row.status = LEFT
        session.add(row)
        reply.send(req.address, t("subject.observer", lang), t("observer.stopped", lang, game=game.id, name=game.name))
        return Handled("command", f"unwatch {game.id}", game.id)
    why = _refusal(session, game, req.address)
    if why is not None:
        return _refuse(reply, f"observer.refused.{why}", f"watch {game.id}: {why}", game, game=game.id)
    if row is not None:
        return _refuse(reply, "observer.already", f"watch {game.id}: already", game, game=game.id)
    pending = mode(game) == APPROVED
    row = Observer(game_id=game.id, address=req.address, language=lang, status=PENDING if pending else ACTIVE,
                   seen_seq=_first_seen(session, game), created_at=ctx.now())
    session.add(row)
    session.flush()
    if pending:
        if game.master_address:
            mailer.queue(session, ctx, to=game.master_address, subject=mailer.subject(game, t("subject.observer", lang),
                                                                                      None, lang),
                         text=t("observer.ask_master", lang, game=game.id, address=req.address), kind="notice",
                         game=game)
        reply.send(req.address, t("subject.observer", lang), t("observer.pending", lang, game=game.id, name=game.name))
        return Handled("command", f"watch {game.id}: awaiting the game master", game.id)
    reply.send(req.address, t("subject.observer", lang), welcome_text(game, lang, reply.ctx.config.server.address))
    log.info("game %s: %s watches", game.id, req.address)
    return Handled("command", f"watch {game.id}", game.id)


def welcome_text(game: Game, lang: str, address: str) -> str:
    turns = delay(game)
    late = tn("observer.delay", turns, lang) if turns else t("observer.no_delay", lang)
    return t("observer.welcome", lang, game=game.id, name=game.name, late=late, address=address)


# --- the game master's command -----------------------------------------------------------------


def add(ctx: Context, game_id: str, address: str, language: str | None = None) -> str:
    """``pbem game watch ID EMAIL``: the address watches the game (a pending request is
    approved), told so by mail in the same transaction."""
    address = address.strip().lower()
    if "@" not in address or " " in address:
        raise UserError(f"not a mail address: {address!r}")
    with ctx.session() as session:
        game = session.get(Game, game_id)
        if game is None:
            raise NotFoundError(f"no game {game_id!r}")
        row = find(session, game.id, address)
        if row is not None and row.status == ACTIVE:
            return f"{address} already watches {game.id}"
        why = None if row is not None else _refusal(session, game, address)
        if why is not None:
            raise UserError(t(f"observer.refused.{why}", "en", game=game.id))
        lang = language or (row.language if row is not None else ctx.config.server.language)
        if row is None:
            row = Observer(game_id=game.id, address=address, language=lang, seen_seq=_first_seen(session, game),
                           created_at=ctx.now())
        row.status, row.language = ACTIVE, lang
        session.add(row)
        mailer.queue(session, ctx, to=address, subject=mailer.subject(game, t("subject.observer", lang), None, lang),
                     text=welcome_text(game, lang, ctx.config.server.address), kind=KIND, game=game)
        session.commit()
    log.info("game %s: %s watches (game master)", game_id, address)
    return f"{address} now watches {game_id}"


def approve(session: Session, ctx: Context, game: Game, address: str, lang: str) -> str | None:
    """The game master's ``APPROVE <address>`` by mail for a pending request to watch
    (``observers=approved``): the address now watches, its welcome queued in the caller's
    transaction. None when no request of that address awaits approval."""
    row = find(session, game.id, address)
    if row is None or row.status != PENDING:
        return None
    row.status = ACTIVE
    session.add(row)
    mailer.queue(session, ctx, to=row.address,
                 subject=mailer.subject(game, t("subject.observer", row.language), None, row.language),
                 text=welcome_text(game, row.language, ctx.config.server.address), kind=KIND, game=game)
    log.info("game %s: %s watches (approved by mail)", game.id, row.address)
    return t("observer.approved", lang, game=game.id, address=row.address)


# --- reports -----------------------------------------------------------------------------------


def drafts(session: Session, ctx: Context, game: Game, rules: Rules, last_seq: int, final: bool,
           svgs: dict[str, str]) -> tuple[list["Draft"], dict[int, int]]:
    """The observers' reports for a report job that resolved up to ``last_seq``: each
    observer's phases not yet shown that the delay lets through, from the spectator view;
    the drawings they need are added to ``svgs``. Returns the drafts and each observer's new
    ``seen_seq`` (stored when they are queued, `mark_seen`)."""
    from pbem.service.reports import Draft, report_what, stem, step_in_turn

    watching = of_game(session, game.id)
    if not watching:
        return [], {}
    phases = store.phases(session, game.id)
    rows = [r for r in phases if r.resolved_at is not None and r.seq <= last_seq]
    if not rows:
        return [], {}
    upto = visible_upto(rows, rows[-1].turn, delay(game, rules), final)
    out: list[Draft] = []
    seen: dict[int, int] = {}
    by_seq = {r.seq: r for r in phases}
    for obs in watching:
        shown = [r for r in rows if obs.seen_seq < r.seq <= upto]
        if not shown or obs.id is None or plays_in(session, game, obs.address):
            continue  # an observer who took a seat since reads the seat's reports, not these
        lang = obs.language
        state = rules.decode_state(json.loads(shown[-1].state_json))
        view = rules.view(state, None)  # the spectator's: the game's own redaction point
        nxt = None if final else by_seq.get(shown[-1].seq + 1)
        what = report_what(rules, state, shown, nxt, final, lang)
        text = report_text(session, game, rules, view, shown, final, lang, ctx.config.server.address)
        key = mailer.map_key(view, lang)
        if key not in svgs:
            svgs[key] = rules.render({**view, "lang": lang})
        out.append(Draft("", obs.address, mailer.subject(game, what, shown[-1].turn, lang), text, view,
                         key, stem(shown[-1].turn, "spectator", step_in_turn(session, shown[-1])), kind=KIND))
        seen[obs.id] = shown[-1].seq
    return out, seen


def report_text(session: Session, game: Game, rules: Rules, view: dict[str, Any], shown: Sequence[PhaseRow],
                final: bool, lang: str, address: str) -> str:
    """An observer's report: the public position, the dice (secret values sealed until the seed
    is out), the chain; no orders, no template; the seed at the end."""
    from pbem.core.rules import seat_label
    from pbem.service.reports import rolls_text, sealed_rolls, stem, step_in_turn

    lines = [t("observer.head", lang, name=game.name, title=rules.info.title, game=game.id), ""]
    done = list(dict.fromkeys(s for r in shown for s in store.awaiting(r)))
    if done:
        lines += [tn("report.resolved", len(done), lang, turn=shown[-1].turn,
                     seats=listed([seat_label(rules, s, lang) for s in done], lang)), ""]
    rolls = [Roll(r.counter, r.phase_seq, r.purpose, r.sides, r.value) for r in session.exec(
        select(RollRow).where(RollRow.game_id == game.id, col(RollRow.phase_seq) >= shown[0].seq,
                              col(RollRow.phase_seq) <= shown[-1].seq).order_by(col(RollRow.counter)))]
    lines += [rules.describe(view, lang), "", t("section.dice", lang)]
    lines += ["  " + r for r in rolls_text(rolls, lang, sealed_rolls(game, rules), rules.catalog,
                                           roll_notes(rules, view, rolls, lang))]
    lines += ["", t("report.chain", lang, hash=shown[-1].hash[:16], commitment=game.commitment)]
    name = f"{game.id}-{stem(shown[-1].turn, 'spectator', step_in_turn(session, shown[-1]))}"
    lines.append(t("report.attached", lang, png=f"{name}.png", json=f"{name}.json"))
    if final:
        lines += ["", t("report.finished", lang), t("report.seed", lang, seed=game.seed_hex, commitment=game.commitment)]
    else:
        turns = delay(game, rules)
        if turns:
            lines += ["", tn("observer.delay", turns, lang)]
        lines += ["", t("observer.stop", lang, game=game.id, address=address)]
    return "\n".join(lines)


def mark_seen(session: Session, seen: dict[int, int]) -> None:
    """In the transaction that queues their reports: what each observer has now seen."""
    for obs_id, seq in seen.items():
        obs = session.get(Observer, obs_id)
        if obs is not None and seq > obs.seen_seq:
            obs.seen_seq = seq
            session.add(obs)


def tell(session: Session, ctx: Context, game: Game, subject: Callable[[str], str], text: Callable[[str], str]) -> int:
    """One mail to every active observer, in the observer's language (a game ended by vote or
    by the game master: the end and the seed)."""
    sent = 0
    for obs in of_game(session, game.id):
        mailer.queue(session, ctx, to=obs.address, subject=mailer.subject(game, subject(obs.language), None, obs.language),
                     text=text(obs.language), kind=KIND, game=game)
        sent += 1
    return sent


def listing(session: Session, game_id: str) -> list[dict[str, Any]]:
    """For ``pbem game show``: who watches (the game master's view, addresses included)."""
    rows = session.exec(select(Observer).where(Observer.game_id == game_id, Observer.status != LEFT)
                        .order_by(col(Observer.id)))
    return [{"address": o.address, "status": o.status} for o in rows]
