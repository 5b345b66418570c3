"""Reading and writing a game's rows: the small queries every use-case shares."""

from __future__ import annotations

import json
import threading
from collections import OrderedDict
from typing import Any

from sqlalchemy import and_, bindparam, inspect
from sqlalchemy.orm import defer
from sqlmodel import Session, col, select

from pbem.core import registry
from pbem.core.codec import canonical_json, sha256_hex
from pbem.core.rules import Rules
from pbem.db import direct
from pbem.db.models import Game, PhaseRow, Player, Seat, SheetRow
from pbem.errors import NotFoundError


# The statements of every order mail, built once (building one costs more than running it
# on SQLite); each takes its values as parameters.
#: What a mail never reads of the game and its phase (the first state, the sealed seed, the
#: outcome, the phase's own copy of the state: ~2/3 of the row's bytes, and a decryption): left
#: unread, loaded on first use (a turn's resolution reads the seed).
UNREAD = (defer(Game.initial_state_json), defer(Game.seed_hex), defer(Game.outcome_json),  # type: ignore[arg-type]
           defer(PhaseRow.state_json))  # type: ignore[arg-type]
_GAME_PHASE = (select(Game, PhaseRow).where(Game.id == bindparam("game_id"))
               .outerjoin(PhaseRow, and_(col(PhaseRow.game_id) == Game.id, col(PhaseRow.seq) == Game.phase_seq))
               .options(*UNREAD))
_GAME = Game.__table__  # type: ignore[attr-defined]
#: The game's row locked for the transaction, in a statement of its own (`lock_game`).
_LOCK = select(_GAME.c.id).where(_GAME.c.id == bindparam("game_id")).with_for_update()
#: The game and its phase with the player at an address (`get_game`'s ``player``): a row of no
#: table of the game's, joined on the address alone, so the game's row is found with or without it.
_GAME_PHASE_PLAYER = (select(Game, PhaseRow, Player).where(Game.id == bindparam("game_id"))
                      .outerjoin(PhaseRow, and_(col(PhaseRow.game_id) == Game.id, col(PhaseRow.seq) == Game.phase_seq))
                      .outerjoin(Player, col(Player.address) == bindparam("address")).options(*UNREAD))
_PHASE = select(PhaseRow).where(PhaseRow.game_id == bindparam("game_id"), PhaseRow.seq == bindparam("seq"))
_SEAT = select(Seat).where(Seat.game_id == bindparam("game_id"), Seat.name == bindparam("name"))
_SHEET_ON_FILE = (select(SheetRow).where(SheetRow.game_id == bindparam("game_id"), SheetRow.phase_seq == bindparam("seq"),
                                         SheetRow.seat == bindparam("seat"), col(SheetRow.superseded).is_(False))
                  .order_by(col(SheetRow.id).desc()))
_PLAYER = select(Player).where(Player.address == bindparam("address"))
_SEATS = select(Seat).where(Seat.game_id == bindparam("game_id")).order_by(col(Seat.id))
_SHEETS_OF_PHASE = (select(SheetRow).where(SheetRow.game_id == bindparam("game_id"), SheetRow.phase_seq == bindparam("seq"),
                                           col(SheetRow.superseded).is_(False)).order_by(col(SheetRow.id)))


def lock_game(session: Session, game_id: str) -> bool:
    """Lock the game's row for the transaction (False: no such game), in a statement of its own:
    what the transaction reads next is read as committed by whoever held the lock before. A
    statement that locked the game and read its phase (or seats, or sheets) with it would read
    them as they were when it began, before it waited for the lock (READ COMMITTED)."""
    return bool(direct.rows(session.connection(), _LOCK, {"game_id": game_id.strip().lower()}))


def get_game(session: Session, game_id: str, lock: bool = False, phase: bool = False,
             player: str | None = None) -> Game:
    """The game (``lock``: its row locked for the transaction). ``phase``: its current
    phase read in the same statement, for `current_phase` to find without a query; and
    ``player`` (an address, with ``phase``): the player at that address too, for `player_at`
    (an order mail asks for its sender's language first: one statement for both). With
    ``phase``, the lock is taken first (`lock_game`), the phase read after it."""
    if phase and lock and not lock_game(session, game_id):
        raise NotFoundError(f"no game with id {game_id!r}")
    if not phase:
        stmt = select(Game).where(Game.id == game_id.strip().lower())
        if lock:
            stmt = stmt.with_for_update()
        game = session.exec(stmt).first()
        if game is None:
            raise NotFoundError(f"no game with id {game_id!r}")
        return game
    if player is not None:
        return _game_and_player(session, game_id, player)
    found = session.exec(_GAME_PHASE, params={"game_id": game_id.strip().lower()}).first()
    if found is None:
        raise NotFoundError(f"no game with id {game_id!r}")
    game, row = found
    keep_read(session, game, row)
    return game


def _game_and_player(session: Session, game_id: str, address: str) -> Game:
    """`get_game` with its phase and the player at ``address`` (kept as `player_at` keeps it)."""
    addr = address.strip().lower()
    found = session.exec(_GAME_PHASE_PLAYER, params={"game_id": game_id.strip().lower(), "address": addr}).first()
    if found is None:
        raise NotFoundError(f"no game with id {game_id!r}")
    game, row, player = found
    keep_read(session, game, row, addr, player)
    return game


def keep_read(session: Session, game: Game, phase: PhaseRow | None, address: str = "",
              player: Player | None = None) -> None:
    """A game's current phase and the player at ``address`` (lower case), read with it in one
    statement (`get_game`, `pbem.service.inbound.read_game`): kept for `current_phase` and
    `player_at` to find without a query."""
    if phase is not None:
        session.info.setdefault(_PHASES, {})[(game.id, phase.seq)] = phase
    if player is not None and address:
        session.info.setdefault(_PLAYERS, {})[address] = player


def rules_of(game: Game) -> Rules:
    return registry.get(game.kind)


#: Decoded states, by game kind and the stored text itself, of the games whose rules say their
#: states are never changed in place (``frozen_state``: frozen dataclasses and tuples, every
#: change a new state): the same text decodes to an equal state, so a state written since is
#: another key and a stale one is never served. Bounded: the least recently used goes first.
#: An order mail decodes its game's state (~0.6 ms for Corteo); the other seats' mails of the
#: same turn, and the turn's resolution, find it here.
_STATES: OrderedDict[tuple[str, str], Any] = OrderedDict()
_STATES_MAX = 64
_STATES_LOCK = threading.Lock()  # mails are handled in threads


def state_of(game: Game) -> Any:
    rules = rules_of(game)
    text = game.state_json
    if not getattr(rules, "frozen_state", False):
        return rules.decode_state(json.loads(text))
    key = (game.kind, text)
    with _STATES_LOCK:
        state = _STATES.get(key)
        if state is not None:
            _STATES.move_to_end(key)
            return state
    state = rules.decode_state(json.loads(text))
    with _STATES_LOCK:
        _STATES[key] = state
        while len(_STATES) > _STATES_MAX:
            _STATES.popitem(last=False)
    return state


def set_state(game: Game, rules: Rules, state: Any) -> str:
    """Store the state cache; returns its hash."""
    data = rules.encode_state(state)
    text = canonical_json(data)
    game.state_json = text
    return sha256_hex(text)


def seats(session: Session, game_id: str) -> list[Seat]:
    return list(session.exec(_SEATS, params={"game_id": game_id}))


def seat(session: Session, game_id: str, name: str) -> Seat | None:
    return session.exec(_SEAT, params={"game_id": game_id, "name": name.strip().lower()}).first()


#: Where a session keeps the phases `get_game` read with their game, by (game, seq).
_PHASES = "pbem.phases"


def current_phase(session: Session, game: Game) -> PhaseRow | None:
    known = session.info.get(_PHASES)
    if known:
        row = known.get((game.id, game.phase_seq))
        if row is not None and row in session and inspect(row).persistent \
                and row.game_id == game.id and row.seq == game.phase_seq:
            return row
    return session.exec(_PHASE, params={"game_id": game.id, "seq": game.phase_seq}).first()


def phases(session: Session, game_id: str) -> list[PhaseRow]:
    return list(session.exec(select(PhaseRow).where(PhaseRow.game_id == game_id).order_by(col(PhaseRow.seq))))


def sheet_on_file(session: Session, game_id: str, seq: int, seat_name: str) -> SheetRow | None:
    return session.exec(_SHEET_ON_FILE, params={"game_id": game_id, "seq": seq, "seat": seat_name}).first()


def sheets_of_phase(session: Session, game_id: str, seq: int) -> list[SheetRow]:
    return list(session.exec(_SHEETS_OF_PHASE, params={"game_id": game_id, "seq": seq}))


#: Where a session keeps the players it has read by address (`player_at`).
_PLAYERS = "pbem.players"


def player_at(session: Session, address: str) -> Player | None:
    """The player with this address, read once per session: one mail asks for its sender's
    language, time zone and bounce mark, and labels them to team-mates (by id, from the
    session's identity map, which this keeps alive). A row the session has since dropped
    (a rollback, a delete) or renamed is read again."""
    addr = address.strip().lower()
    known: dict[str, Player] = session.info.setdefault(_PLAYERS, {})
    player = known.get(addr)
    if player is not None and player in session and inspect(player).persistent and player.address == addr:
        return player
    player = session.exec(_PLAYER, params={"address": addr}).first()
    if player is not None:
        known[addr] = player
    else:
        known.pop(addr, None)
    return player


def player_for(session: Session, address: str, language: str) -> Player:
    addr = address.strip().lower()
    player = player_at(session, addr)
    if player is None:
        player = Player(address=addr, language=language)
        session.add(player)
        session.flush()
        session.info.setdefault(_PLAYERS, {})[addr] = player
    return player


def awaiting(phase: PhaseRow) -> list[str]:
    return list(json.loads(phase.awaiting_json))
