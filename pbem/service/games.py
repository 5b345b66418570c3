"""Creating games and the game master's controls (extend, pause, resume)."""

from __future__ import annotations

import json
import logging
from dataclasses import dataclass
from datetime import timedelta
from typing import Any, Callable, Mapping, Sequence

from sqlmodel import Session, col, select

from pbem.config import parse_duration
from pbem.core import registry
from pbem.core.codec import canonical_json, sha256_hex
from pbem.core.dice import commitment
from pbem.core.i18n import normalise_language
from pbem.core.rules import seat_label
from pbem.db.models import Counter, Game, Holder, PhaseRow, Seat, SeatEntry
from pbem.errors import ConfigError, GameStateError, PbemError, UserError
from pbem.mail.compose import Attachment
from pbem.service import calendar, holders, mailer, store, turns
from pbem.service.context import Context
from pbem.service.texts import t
from pbem.service.timefmt import duration, show, zone_of

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class HolderSpec:
    """One player of a seat: an address and, optionally, a language."""

    address: str
    language: str | None = None

    @classmethod
    def parse(cls, text: str, seat: str = "") -> "HolderSpec":
        """``alice@example.org`` or ``alice@example.org:it``."""
        address, _, lang = text.strip().partition(":")
        where = f" for seat {seat!r}" if seat else ""
        if "@" not in address or address.strip() != address or " " in address:
            raise UserError(f"not a mail address{where}: {address!r}")
        if lang and lang.lower() not in ("en", "it"):
            raise UserError(f"language{where} must be en or it, not {lang!r}")
        return cls(address, lang.lower() or None)


@dataclass(frozen=True)
class SeatSpec:
    """A seat and its first player; ``more`` are the other players of a team."""

    seat: str
    address: str
    language: str | None = None
    more: tuple[HolderSpec, ...] = ()

    @property
    def holders(self) -> tuple[HolderSpec, ...]:
        return (HolderSpec(self.address, self.language), *self.more)

    @property
    def is_open(self) -> bool:
        """``red=open``: a seat for whoever signs up by mail (JOIN, `pbem.service.signup`)."""
        return not self.address

    @classmethod
    def parse(cls, text: str) -> "SeatSpec":
        """``north=alice@example.org``, ``north=alice@example.org:it``, or a team:
        ``north=alice@example.org:it,bruno@example.org`` (each player with their language)."""
        if "=" not in text:
            raise UserError(f"a seat is SEAT=EMAIL[:LANG][,EMAIL[:LANG]...], not {text!r}")
        seat, _, rest = text.partition("=")
        seat = seat.strip().lower()
        if rest.strip().lower() == OPEN:
            return cls(seat, "")
        people = [HolderSpec.parse(part, seat) for part in rest.split(",")]
        return cls(seat, people[0].address, people[0].language, tuple(people[1:]))


def _next_id(session: Session, prefix: str) -> str:
    row = session.get(Counter, f"game:{prefix}")
    if row is None:
        row = Counter(name=f"game:{prefix}", value=0)
    row.value += 1
    session.add(row)
    return f"{prefix}{row.value}"


POLICY_KEYS = ("reminders", "grace", "early", "warn_after", "abandon_after", "decision", "takeover", "absence_days",
               "observers", "observer_delay", "press", "press_in")
#: Observers and press (`pbem.service.observers`, `pbem.service.press`): the words each takes.
WORD_POLICIES = {"observers": ("open", "approved", "none"), "press": ("none", "white", "grey", "broadcast-only"),
                 "press_in": ("all", "orders")}
#: ``--seat red=open``: the seat is free for sign-up by mail.
OPEN = "open"
#: Who gives an abandoned or freed seat to a player who asked (TAKEOVER): the confirmation
#: alone, or the game master's APPROVE after it.
TAKEOVER_POLICIES = ("auto", "approve")


def policy(ctx: Context, deadline: str | None, overrides: Mapping[str, str] | None = None) -> dict[str, Any]:
    """The game's deadline policy: the configuration's [games], then the game master's overrides."""
    g = ctx.config.games
    out: dict[str, Any] = {"absence_days": g.absence_days,
                           "reminders": list(g.reminders), "grace": g.grace, "early": g.early_resolution,
                           "warn_after": g.warn_after_misses, "abandon_after": g.abandon_after_misses,
                           "decision": g.decision_deadline, "deadline": deadline or g.deadline}
    for key, value in (overrides or {}).items():
        if key not in POLICY_KEYS:
            raise UserError(f"unknown policy {key!r} (policies: {', '.join(POLICY_KEYS)})")
        try:
            if key == "reminders":
                out[key] = [v.strip() for v in value.split(",") if v.strip()]
                for v in out[key]:
                    parse_duration(v)
            elif key in ("grace", "decision"):
                parse_duration(value)
                out[key] = value
            elif key == "takeover":
                if value.lower() not in TAKEOVER_POLICIES:
                    raise UserError(f"takeover takes {' or '.join(TAKEOVER_POLICIES)}")
                out[key] = value.lower()
            elif key in WORD_POLICIES:
                if value.lower() not in WORD_POLICIES[key]:
                    raise UserError(f"{key} takes {' or '.join(WORD_POLICIES[key])}")
                out[key] = value.lower()
            elif key == "early":
                if value.lower() not in ("yes", "no", "true", "false"):
                    raise UserError("early takes yes or no")
                out[key] = value.lower() in ("yes", "true")
            else:
                out[key] = int(value)
                if out[key] < (0 if key in ("absence_days", "observer_delay") else 1):  # 0: absences move nothing; no delay
                    raise ValueError(value)
        except (ValueError, PbemError) as exc:
            raise UserError(f"bad value for policy {key}: {value!r} ({exc})") from None
    return out


def _duration(what: str, text: str) -> timedelta:
    """A game master's duration: a bad one is a `UserError` naming what it was for."""
    try:
        return parse_duration(text)
    except ConfigError as exc:
        raise UserError(f"{what}: {exc}") from None


def genesis_hash_of(game_id: str, kind: str, rules_version: str, options: Any, seat_names: Sequence[str],
                    dice_commitment: str, initial_hash: str) -> str:
    """The start of the hash chain: what the game was before any order."""
    return sha256_hex(canonical_json({
        "game": game_id, "kind": kind, "rules_version": rules_version, "options": options,
        "seats": list(seat_names), "commitment": dice_commitment, "initial_state": initial_hash}))


def genesis_hash(game: Game, seat_names: Sequence[str], initial_hash: str) -> str:
    return genesis_hash_of(game.id, game.kind, game.rules_version, json.loads(game.options_json), seat_names,
                           game.commitment, initial_hash)


def create(ctx: Context, kind: str, name: str, seat_specs: Sequence[SeatSpec], deadline: str | None = None,
           options: Mapping[str, str] | None = None, policies: Mapping[str, str] | None = None,
           open_all: bool = False, linked: Callable[[Session, str], None] | None = None) -> str:
    """Create a game, open its first phase and queue every seat's welcome mail. ``linked``
    writes what refers to the new game (a league's board) in the game's own transaction, so
    that a crash leaves both or neither. With open
    seats (``red=open``, or ``open_all``: every seat of the rules not named) the game waits
    for sign-up by mail instead (status ``open``, `SeatEntry` rows); it starts, as here,
    when its last seat is taken or the game master starts it (`pbem.service.signup`)."""
    rules = registry.get(kind)
    info = rules.info
    options = dict(options or {})
    unknown = sorted(set(options) - set(info.options))
    if unknown:
        known = ", ".join(info.options) or "none"
        raise UserError(f"unknown option {unknown[0]!r} for {info.slug} (options: {known})")
    for key, option in info.options.items():
        options.setdefault(key, option.default)
        if option.choices and options[key] not in option.choices:
            raise UserError(f"option {key} must be one of {', '.join(option.choices)}")
    if open_all:
        named = {s.seat for s in seat_specs}
        seat_specs = [*seat_specs, *(SeatSpec(seat, "") for seat in info.seats if seat not in named)]
    names = [s.seat for s in seat_specs]
    if len(set(names)) != len(names):
        raise UserError("each seat may be named once (a team: SEAT=EMAIL,EMAIL...)")
    for spec in seat_specs:
        addresses = [h.address.strip().lower() for h in spec.holders]
        if len(set(addresses)) != len(addresses):
            raise UserError(f"seat {spec.seat!r} names the same player twice")
    check_seats(info, names)
    turn_length = _duration("deadline", deadline or ctx.config.games.deadline)
    game_policy = policy(ctx, deadline, policies)
    if turn_length < timedelta(minutes=1):
        raise UserError("a deadline must be at least one minute")
    # Seat order is the rules' order, whatever order the command line used.
    order = {s: i for i, s in enumerate(info.seats)}
    specs = sorted(seat_specs, key=lambda s: order.get(s.seat, len(order)))
    is_open = any(s.is_open for s in specs)
    if is_open:
        rules.new_game([s.seat for s in specs], options)  # the seat names checked now, the game made at the start
    seed = ctx.entropy(32)
    now = ctx.now()
    with ctx.session() as session:
        game = Game(id=_next_id(session, info.id_prefix), kind=info.slug, name=name, rules_version=info.version,
                    options_json=canonical_json(options), status=OPEN if is_open else "active",
                    timezone=ctx.config.server.timezone,
                    turn_seconds=int(turn_length.total_seconds()),
                    policy_json=canonical_json(game_policy), seed_hex=seed.hex(),
                    commitment=commitment(seed), created_at=now)
        session.add(game)
        session.flush()
        if is_open:
            for spec in specs:
                entry = SeatEntry(game_id=game.id, seat=spec.seat)
                if not spec.is_open:
                    lang = normalise_language(spec.language or ctx.config.server.language)
                    player = store.player_for(session, spec.address, lang)
                    entry.status, entry.player_id, entry.address, entry.language = "taken", player.id, \
                        spec.address.lower(), lang
                    entry.team_json = json.dumps([[h.address.lower(), normalise_language(
                        h.language or ctx.config.server.language)] for h in spec.more])
                    entry.taken_at = now
                session.add(entry)
            if linked is not None:
                linked(session, game.id)
            session.commit()
            log.info("created open %s game %s (%s) with seats %s", info.slug, game.id, name, ", ".join(names))
            return game.id
        begin(session, ctx, game, specs)
        if linked is not None:
            linked(session, game.id)
        session.commit()
        log.info("created %s game %s (%s) with seats %s", info.slug, game.id, name, ", ".join(names))
        return game.id


def check_seats(info: Any, names: Sequence[str]) -> None:
    """The rules' seat count, and for a game of fixed seats the seats themselves."""
    if not info.min_seats <= len(names) <= info.max_seats:
        raise UserError(f"{info.title} needs {info.min_seats}–{info.max_seats} seats, not {len(names)}")
    allowed = set(info.seats)
    if info.min_seats == info.max_seats == len(info.seats) and set(names) != allowed:
        raise UserError(f"{info.title} has the seats {', '.join(info.seats)}")


def begin(session: Session, ctx: Context, game: Game, specs: Sequence[SeatSpec]) -> None:
    """Start ``game`` with these seats (in the rules' order, none open): its state and hash
    chain, the seats and their holders, the first phase, every holder's welcome. The
    caller commits (the welcomes carry the secrets: they are queued in that transaction)."""
    rules = store.rules_of(game)
    options = json.loads(game.options_json)
    state = rules.new_game([s.seat for s in specs], options)
    secrets_by_holder: dict[int, str] = {}
    initial_hash = store.set_state(game, rules, state)
    game.initial_state_json = game.state_json
    game.head_hash = genesis_hash(game, [s.seat for s in specs], initial_hash)
    game.status = "active"
    session.add(game)
    session.flush()
    for spec in specs:
        langs = [normalise_language(h.language or ctx.config.server.language) for h in spec.holders]
        player = store.player_for(session, spec.address, langs[0])
        assert player.id is not None
        seat_row = Seat(game_id=game.id, name=spec.seat, player_id=player.id, address=spec.address.lower(),
                        secret_hash="", language=langs[0])  # the holders below are the truth
        session.add(seat_row)
        session.flush()
        for holder_spec, lang in zip(spec.holders, langs):
            holder, secret = holders.make(session, ctx, seat_row, holder_spec.address, lang)
            assert holder.id is not None
            secrets_by_holder[holder.id] = secret
    phase = turns.open_phase(session, ctx, game, rules, state)
    if not rules.phase(state).awaiting and rules.outcome(state) is None:
        turns.resolve(session, ctx, game)  # a server step first (e.g. the set-up draws)
        state = store.state_of(game)
        current = store.current_phase(session, game)
        assert current is not None
        phase = current
    for seat_row in store.seats(session, game.id):
        for holder in holders.active(session, seat_row):
            assert holder.id is not None
            welcome(session, ctx, game, seat_row, holder, secrets_by_holder[holder.id], phase, state)


def welcome(session: Session, ctx: Context, game: Game, seat_row: Seat, holder: Holder, secret: str,
            phase: PhaseRow | None, state: Any, extra: Sequence[str] = ()) -> None:
    """The welcome mail of one holder: its own secret, in its own language; a team's
    player also learns who shares the seat (their addresses, never their secrets).
    ``extra``: lines at the end (a player taking over a seat: the seat's history)."""
    rules = store.rules_of(game)
    lang = holder.language
    zone = zone_of(session, game, holder.address)
    active = holders.of_game(session, game.id)
    others = [s for s in store.seats(session, game.id) if s.name != seat_row.name]
    mates = [h for h in active.get(seat_row.id or 0, []) if h.id != holder.id]
    turn = phase.turn if phase is not None else rules.phase(state).turn
    view = rules.view(state, seat_row.name)
    files = [*mailer.MapCache(ctx).attachments(rules, game, view, "start", lang),
             *calendar.attachment(ctx, game, phase, lang)]
    body = [
        t("welcome.head", lang, name=game.name, title=rules.info.title, game=game.id,
          seat=seat_label(rules, seat_row.name, lang)),
        "",
        t("welcome.opponents", lang,
          others=", ".join(_seat_label(s, active.get(s.id or 0, []), seat_label(rules, s.name, lang))
                           for s in others) or "—"),
    ]
    if mates:
        body.append(t("welcome.team", lang, others=holders.labels(session, mates)))
    body += [
        t("welcome.secret", lang, secret=secret),
        t("welcome.commitment", lang, commitment=game.commitment),
        t("welcome.deadline", lang, length=duration(timedelta(seconds=game.turn_seconds), lang),
          deadline=show(phase.deadline if phase is not None else None, zone, lang)),
        *_attached(files, lang),
        "",
        t("welcome.howto", lang, game=game.id, seat=seat_row.name, secret=secret, turn=turn,
          address=ctx.config.server.address),
        "",
        rules.help(lang),
        "",
        t("section.your_orders", lang),
        rules.template(state, seat_row.name, lang),
        *extra,
    ]
    mailer.queue(session, ctx, to=holder.address, subject=mailer.subject(game, t("subject.welcome", lang)),
                 text="\n".join(body), kind="welcome", game=game, seat=seat_row.name, attachments=files)


def _attached(files: Sequence[Attachment], lang: str) -> list[str]:
    """What the welcome's attachments are for, as the reports say of theirs: the start map,
    its view as data, and the first deadline's calendar event when there is one."""
    names = [f.filename for f in files]
    png = next((n for n in names if n.endswith(".png")), None)
    data = next((n for n in names if n.endswith(".json")), None)
    ics = next((n for n in names if n.endswith(".ics")), None)
    out = [t("welcome.attached", lang, png=png, json=data)] if png and data else []
    return out + ([t("welcome.attached_calendar", lang, ics=ics)] if ics else [])


def _seat_label(seat_row: Seat, rows: Sequence[Holder], name: str | None = None) -> str:
    """``North <anna@example.org>``; a team: ``North <anna@example.org> + <bruno@example.org>``;
    ``name``: the seat as the reader's language names it (default: its name in the order block)."""
    name = name or seat_row.name
    return f"{name} " + " + ".join(f"<{h.address}>" for h in rows) if rows else name


def list_games(ctx: Context) -> list[Game]:
    with ctx.session() as session:
        return list(session.exec(select(Game).order_by(col(Game.created_at))))


def show_game(ctx: Context, game_id: str) -> dict[str, Any]:
    """A summary for the CLI (no secrets)."""
    with ctx.session() as session:
        game = store.get_game(session, game_id)
        phase = store.current_phase(session, game)
        seat_rows = store.seats(session, game.id)
        filed = {r.seat for r in store.sheets_of_phase(session, game.id, game.phase_seq)} if phase else set()
        return {
            "id": game.id, "kind": game.kind, "name": game.name, "status": game.status,
            "rules_version": game.rules_version, "options": json.loads(game.options_json),
            "policy": json.loads(game.policy_json),
            "commitment": game.commitment, "seed": game.seed_hex if game.seed_revealed else None,
            "turn": phase.turn if phase else None, "phase": phase.name if phase else None,
            "awaiting": store.awaiting(phase) if phase and game.status != "finished" else [],
            "orders_in": sorted(filed),
            "deadline": show(phase.deadline, game.timezone) if phase and game.status == "active" else None,
            "seats": [_seat_summary(session, s) for s in seat_rows],
            "signup": [{"seat": e.seat, "status": e.status, "address": e.address}  # an open game's seats
                       for e in session.exec(select(SeatEntry).where(SeatEntry.game_id == game.id)
                                             .order_by(col(SeatEntry.id)))] if game.status == OPEN else None,
            "outcome": json.loads(game.outcome_json) if game.outcome_json else None,
            "master": game.master_address or None,  # the game master by mail (pbem game master)
            "observers": _observers(session, game.id),  # WATCH, pbem game watch
        }


def _observers(session: Session, game_id: str) -> list[dict[str, Any]]:
    from pbem.service import observers  # observers reach the game's reports through `pbem.service.reports`

    return observers.listing(session, game_id)


def _seat_summary(session: Session, seat_row: Seat) -> dict[str, Any]:
    """A seat for `show_game`: ``address`` and ``language`` are its first active holder's."""
    rows = holders.recipients(session, seat_row)
    head = rows[0] if rows else None
    return {"seat": seat_row.name, "address": head.address if head else "", "language": head.language if head else "",
            "status": seat_row.status, "misses": seat_row.misses,
            "holders": [{"address": h.address, "language": h.language, "status": h.status}
                        for h in holders.everyone(session, seat_row)]}


def extend(ctx: Context, game_id: str, duration: str) -> str:
    delta = _duration("the extension", duration)
    with ctx.session() as session:
        game = store.get_game(session, game_id, lock=True)
        text = extend_game(session, ctx, game, delta)
        session.commit()
        return text


def extend_game(session: Session, ctx: Context, game: Game, delta: timedelta, lang: str = "en") -> str:
    """Move the deadline on by ``delta`` in the caller's transaction (the command line, or
    the game master's mail: `pbem.service.master`); every seat is told."""
    if game.status == "finished":
        raise GameStateError(f"game {game.id} is finished")
    if game.status == "paused":
        game.paused_remaining = (game.paused_remaining or 0) + int(delta.total_seconds())
        session.add(game)
        return t("gm.extended_paused", lang, game=game.id, length=duration(delta, lang))
    if game.status != "active":  # an open game has no deadline yet
        raise GameStateError(f"game {game.id} is {game.status}: it has no deadline to extend")
    phase = store.current_phase(session, game)
    assert phase is not None and phase.deadline is not None
    phase.deadline = phase.deadline + delta
    calendar.moved(phase)
    session.add(phase)
    _tell_every_seat(session, ctx, game, "extended", deadline=phase.deadline)
    return t("gm.extended", lang, game=game.id, deadline=show(phase.deadline, game.timezone, lang))


def _tell_every_seat(session: Session, ctx: Context, game: Game, what: str, deadline: Any = None) -> None:
    """The game master's change, mailed to every holder of every seat in its language and zone
    (gm.<what>); a moved deadline carries its calendar event."""
    phase = store.current_phase(session, game) if deadline is not None else None
    for seat_row in store.seats(session, game.id):
        for holder in holders.recipients(session, seat_row):
            lang = holder.language
            mailer.queue(session, ctx, to=holder.address, subject=mailer.subject(game, t(f"subject.{what}", lang), None, lang),
                         text=t(f"gm.{what}", lang, game=game.id,
                                deadline=show(deadline, zone_of(session, game, holder.address), lang)),
                         kind="notice", game=game, seat=seat_row.name,
                         attachments=calendar.attachment(ctx, game, phase, lang))


def pause(ctx: Context, game_id: str) -> str:
    with ctx.session() as session:
        game = store.get_game(session, game_id, lock=True)
        text = pause_game(session, ctx, game)
        session.commit()
        return text


def pause_game(session: Session, ctx: Context, game: Game, lang: str = "en") -> str:
    """Stop the clock in the caller's transaction; every seat is told."""
    if game.status != "active":
        raise GameStateError(f"game {game.id} is {game.status}, not active")
    phase = store.current_phase(session, game)
    assert phase is not None and phase.deadline is not None
    game.paused_remaining = max(0, int((phase.deadline - ctx.now()).total_seconds()))
    game.status = "paused"
    session.add(game)
    _tell_every_seat(session, ctx, game, "paused")
    return t("gm.paused", lang, game=game.id)


def resume(ctx: Context, game_id: str) -> str:
    with ctx.session() as session:
        game = store.get_game(session, game_id, lock=True)
        text = resume_game(session, ctx, game)
        session.commit()
    ctx.after_commit()
    return text


def resume_game(session: Session, ctx: Context, game: Game, lang: str = "en") -> str:
    """Start the clock again with the time that was left, in the caller's transaction."""
    if game.status != "paused":
        raise GameStateError(f"game {game.id} is {game.status}, not paused")
    phase = store.current_phase(session, game)
    assert phase is not None
    phase.deadline = ctx.now() + timedelta(seconds=game.paused_remaining or 0)
    calendar.moved(phase)
    game.status, game.paused_remaining = "active", None
    session.add_all([game, phase])
    _tell_every_seat(session, ctx, game, "resumed", deadline=phase.deadline)
    session.flush()
    turns.resolve_if_ready(session, ctx, game)
    return t("gm.resumed", lang, game=game.id, deadline=show(phase.deadline, game.timezone, lang))
