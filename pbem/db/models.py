"""The tables. The event log, the sheets and the rolls are the truth; the state
kept on `Game` is a cache that `pbem verify` checks against a replay.

Times are stored as naive UTC and come back aware (`UTCDateTime`), so SQLite and
PostgreSQL behave the same.
"""

from __future__ import annotations

from datetime import date, datetime, timezone
from typing import Any, Optional

from sqlalchemy import DDL, Column, DateTime, Index, LargeBinary, Text, UniqueConstraint, event, func, text
from sqlalchemy.types import TypeDecorator
from sqlmodel import Field, SQLModel

from pbem.db.sealed import SealedBytes, SealedString, SealedText


class UTCDateTime(TypeDecorator[datetime]):
    """Aware datetimes in, aware UTC datetimes out, naive UTC on disk."""

    impl = DateTime
    cache_ok = True

    def process_bind_param(self, value: Any, dialect: Any) -> Any:
        if value is None:
            return None
        if value.tzinfo is None:
            raise ValueError("naive datetime given to the database")
        return value.astimezone(timezone.utc).replace(tzinfo=None)

    def process_result_value(self, value: Any, dialect: Any) -> Any:
        if value is None:
            return None
        return value.replace(tzinfo=timezone.utc)


def _time(nullable: bool = True) -> Any:
    return Field(default=None, sa_column=Column(UTCDateTime(), nullable=nullable))


def _text(default: str = "") -> Any:
    return Field(default=default, sa_column=Column(Text, nullable=False))


class Player(SQLModel, table=True):
    id: Optional[int] = Field(default=None, primary_key=True)
    address: str = Field(index=True, unique=True)
    name: str = ""
    language: str = "en"
    timezone: str = ""  # the player's own zone (an IANA name, SET ZONE); "" means each game's zone
    # bounces (pbem.service.bounces): set on a permanent failure, cleared when the player writes again
    bouncing_since: Optional[datetime] = _time()
    bounce_notified_at: Optional[datetime] = _time()  # the game master was last told at


class Game(SQLModel, table=True):
    id: str = Field(primary_key=True)  # e.g. "k42"
    kind: str = Field(index=True)
    name: str
    rules_version: str
    options_json: str = _text("{}")
    status: str = Field(default="active", index=True)  # active | paused | finished
    timezone: str = "UTC"
    turn_seconds: int = 259200
    policy_json: str = _text("{}")
    # secret until the game ends: encrypted at rest (pbem.db.sealed), the key outside the database
    seed_hex: str = Field(default="", sa_column=Column(SealedString(), nullable=False))
    commitment: str = ""
    seed_revealed: bool = False
    initial_state_json: str = _text("")
    state_json: str = _text("")
    phase_seq: int = 0  # sequence number of the open phase
    roll_counter: int = 0  # next die number (gap-free through the game)
    head_hash: str = ""  # hash of the last resolved phase
    outcome_json: str = _text("")
    paused_remaining: Optional[int] = None  # seconds left on the deadline when paused
    # the game's own game master by mail (`pbem game master`; empty: only server.game_master)
    master_address: str = ""
    master_secret_hash: str = ""  # salted, as a holder's (pbem.service.secrets)
    created_at: Optional[datetime] = _time()
    finished_at: Optional[datetime] = _time()


class Seat(SQLModel, table=True):
    """A position in a game. Who holds it (one player, or a team) is in `Holder`.

    ``player_id``, ``address``, ``secret_hash`` and ``language`` are the columns of the
    time before teams: the first migration (`pbem/db/migrations/versions/0001_baseline.py`)
    turns them into the seat's first holder once, and nothing reads them afterwards. New
    seats write the first holder's player, address and language there (for a person
    reading the table) and no secret.
    """

    __table_args__ = (UniqueConstraint("game_id", "name"),)
    id: Optional[int] = Field(default=None, primary_key=True)
    game_id: str = Field(index=True, foreign_key="game.id")
    name: str
    player_id: int = Field(foreign_key="player.id")
    address: str = Field(index=True)
    secret_hash: str
    language: str = "en"
    misses: int = 0  # consecutive missed deadlines
    status: str = "active"  # active | abandoned


class Holder(SQLModel, table=True):
    """A player holding a seat: one row per player, several for a team.

    Each holder has an own secret (salted PBKDF2, as `pbem.service.secrets`), language
    and reply token (`pbem.service.tokens`); every mail for the seat goes to each active
    holder. Rows are never deleted: a holder who leaves or is removed keeps the row
    (``status``), so the first migration never mistakes a seat for one from before
    teams, and a player added again gets the row back with a new secret.
    """

    __tablename__ = "holder"
    __table_args__ = (UniqueConstraint("seat_id", "address"),)
    id: Optional[int] = Field(default=None, primary_key=True)
    seat_id: int = Field(index=True, foreign_key="seat.id")
    game_id: str = Field(index=True, foreign_key="game.id")
    player_id: int = Field(foreign_key="player.id")
    address: str = Field(index=True)
    secret_hash: str = ""
    language: str = "en"
    status: str = "active"  # active | left | removed
    joined_at: Optional[datetime] = _time()
    left_at: Optional[datetime] = _time()
    absence_days_used: int = 0  # days the seat's deadlines were moved for this player's absences


class PhaseRow(SQLModel, table=True):
    __tablename__ = "phase"
    __table_args__ = (UniqueConstraint("game_id", "seq"),)
    id: Optional[int] = Field(default=None, primary_key=True)
    game_id: str = Field(index=True, foreign_key="game.id")
    seq: int
    turn: int
    name: str
    awaiting_json: str = _text("[]")
    sealed: bool = False
    decision: bool = False
    opened_at: Optional[datetime] = _time()
    deadline: Optional[datetime] = _time()
    reminders_sent: int = 0  # how many of the policy's reminders went out
    calendar_sequence: int = 0  # SEQUENCE of the deadline's calendar event: rises each time it moves
    resolved_at: Optional[datetime] = _time()
    orders_digest: str = ""
    rolls_start: int = 0
    rolls_count: int = 0
    state_hash: str = ""
    prev_hash: str = ""
    hash: str = ""
    state_json: str = _text("")  # the position after this phase (a cache; the log replays to it)


class SheetRow(SQLModel, table=True):
    __tablename__ = "sheet"
    # an order mail's read of its phase's sheets (`pbem.service.inbound.read_game`), found by
    # game and phase: SQLite otherwise picks the phase's index, every game's sheets of that phase
    __table_args__ = (Index("ix_sheet_game_phase", "game_id", "phase_seq", "seat"),)
    id: Optional[int] = Field(default=None, primary_key=True)
    game_id: str = Field(index=True, foreign_key="game.id")
    phase_seq: int = Field(index=True)
    seat: str
    raw_text: str = _text("")
    orders_json: str = _text("[]")
    canonical: str = _text("")
    receipt: str = ""
    superseded: bool = False
    source: str = "mail"  # mail | default | cli
    sender: str = ""
    mail_date: Optional[datetime] = _time()  # the Date the player's mail says it was written
    inbound_id: Optional[int] = None
    received_at: Optional[datetime] = _time()


class EventRow(SQLModel, table=True):
    __tablename__ = "event"
    id: Optional[int] = Field(default=None, primary_key=True)
    game_id: str = Field(index=True, foreign_key="game.id")
    phase_seq: int
    seq: int
    kind: str
    data_json: str = _text("{}")
    to_json: str = _text("null")


class RollRow(SQLModel, table=True):
    __tablename__ = "roll"
    __table_args__ = (UniqueConstraint("game_id", "counter"),)
    id: Optional[int] = Field(default=None, primary_key=True)
    game_id: str = Field(index=True, foreign_key="game.id")
    phase_seq: int
    counter: int
    purpose: str
    sides: int
    value: int


#: `InboundMail`'s waiting statuses, as its partial index says them.
WAITING_MAIL = "status IN ('stored', 'processing', 'retrying')"


class InboundMail(SQLModel, table=True):
    __tablename__ = "inbound"
    #: The stored mails still waiting for a worker (PostgreSQL, `pbem.service.queue`), in order:
    #: a worker's claim lists them on this index, which holds only them, not by scanning every
    #: mail ever handled. The statuses are `pbem.service.queue.WAITING`'s.
    __table_args__ = (Index("ix_inbound_waiting", "id", postgresql_where=text(WAITING_MAIL),
                            sqlite_where=text(WAITING_MAIL)),)
    id: Optional[int] = Field(default=None, primary_key=True)
    dedupe_key: str = Field(unique=True, index=True)
    message_id: str = ""
    sender: str = ""
    subject: str = ""
    size: int = 0
    received_at: Optional[datetime] = _time()
    status: str = ""  # orders | command | refused | ignored | error
    game_id: Optional[str] = None
    note: str = _text("")
    raw: Optional[bytes] = Field(default=None, sa_column=Column(LargeBinary, nullable=True))
    #: Workers on PostgreSQL: the mail as it came, sealed, from the mailbox reader until a
    #: worker has handled it (`pbem.service.queue`); None once handled.
    held: Optional[bytes] = Field(default=None, sa_column=Column(SealedBytes(), nullable=True))


class OutboxMail(SQLModel, table=True):
    __tablename__ = "outbox"
    #: The reply limits count a kind's rows of the last hour (pbem.service.limits), on every
    #: answer: for everybody, and for one address (compared case-insensitively).
    __table_args__ = (Index("ix_outbox_kind_created", "kind", "created_at"),
                      Index("ix_outbox_kind_recipient_created", "kind", func.lower(text("recipients_json")),
                            "created_at"))
    id: Optional[int] = Field(default=None, primary_key=True)
    message_id: str = Field(unique=True, index=True)
    game_id: Optional[str] = Field(default=None, index=True)
    kind: str = ""  # welcome | report | reply | reminder | notice | refusal
    mail_from: str = ""
    recipients_json: str = _text("[]")
    subject: str = ""
    raw: bytes = Field(sa_column=Column(SealedBytes(), nullable=False))  # encrypted at rest: a welcome holds a secret
    status: str = Field(default="queued", index=True)  # queued | sent | failed
    attempts: int = 0
    next_attempt_at: Optional[datetime] = _time()
    last_error: str = _text("")
    created_at: Optional[datetime] = _time()
    sent_at: Optional[datetime] = _time()
    # a bounce matched to this mail (pbem.service.bounces): when, "<action> <status>", the server's words
    bounced_at: Optional[datetime] = _time()
    bounce_status: str = ""
    bounce_diagnostic: str = _text("")


class AnswerTally(SQLModel, table=True):
    """The answers of a limited kind (`pbem.service.limits`: ``reply``, ``stranger``) queued in
    one minute, by the connection that queued them: the hourly cap for everybody adds up at most
    an hour of these rows, however many answers the hour had (counting the outbox's rows cost
    0.3 µs each, on every answer). ``slot``: the PostgreSQL backend (0 on SQLite), so that two
    workers never wait for each other's row; bumped by the statement that queues the answer."""

    __tablename__ = "answer_tally"
    kind: str = Field(primary_key=True)
    minute: datetime = Field(sa_column=Column(UTCDateTime(), primary_key=True))
    slot: int = Field(default=0, primary_key=True)
    n: int = 0


class ReportJob(SQLModel, table=True):
    """Reports still to be drawn and queued for phases ``first_seq``..``last_seq``.

    Written in the resolution's transaction; the maps are drawn after the commit, and the
    report mails are queued and the job marked done in one later transaction.
    """

    __tablename__ = "report_job"
    id: Optional[int] = Field(default=None, primary_key=True)
    game_id: str = Field(index=True, foreign_key="game.id")
    first_seq: int
    last_seq: int
    status: str = Field(default="pending", index=True)  # pending | done
    created_at: Optional[datetime] = _time()
    done_at: Optional[datetime] = _time()


class Counter(SQLModel, table=True):
    """Named counters (game ids per kind prefix)."""

    name: str = Field(primary_key=True)
    value: int = 0


class Setting(SQLModel, table=True):
    """Server-wide values created once and kept (the reply-token key when no environment
    variable provides one)."""

    __tablename__ = "setting"
    name: str = Field(primary_key=True)
    value: str = Field(default="", sa_column=Column(SealedText(), nullable=False))  # encrypted at rest


class RefusalNotice(SQLModel, table=True):
    """One row per refusal notice sent, so that notices are rate-limited per seat and reason
    (``security.refusal_interval``): a flood of forged mail gives the seat one notice."""

    __tablename__ = "refusal_notice"
    id: Optional[int] = Field(default=None, primary_key=True)
    game_id: str = Field(index=True)
    seat: str = ""  # empty when the mail named no (known) seat and the notice went to a member
    address: str = ""
    reason: str = ""
    sent_at: Optional[datetime] = _time()


class Absence(SQLModel, table=True):
    """A player's announced absence (``ABSENCE <from> <to>``), whole days, both inclusive,
    read in the player's zone. Each game's policy decides what it does to deadlines; a
    cancelled absence keeps its row (``cancelled``) so what was announced stays on record."""

    __tablename__ = "absence"
    id: Optional[int] = Field(default=None, primary_key=True)
    player_id: int = Field(index=True, foreign_key="player.id")
    start_date: date  # the first day away
    end_date: date  # the last day away
    created_at: Optional[datetime] = _time()
    cancelled: bool = False
    cancelled_at: Optional[datetime] = _time()


class SeatEntry(SQLModel, table=True):
    """A seat of a game that has not started yet (status ``open`` of `Game`): free until a
    player takes it (sign-up confirmed, or named by the game master). At the start the
    taken entries become the game's `Seat` and `Holder` rows; entries still free then
    are left out of the game (where its rules allow fewer seats)."""

    __tablename__ = "seat_entry"
    __table_args__ = (UniqueConstraint("game_id", "seat"),)
    id: Optional[int] = Field(default=None, primary_key=True)
    game_id: str = Field(index=True, foreign_key="game.id")
    seat: str
    status: str = "open"  # open | taken
    player_id: Optional[int] = Field(default=None, foreign_key="player.id")
    address: str = ""  # the first holder; a team named by the game master: more in team_json
    language: str = ""
    team_json: str = _text("[]")  # [[address, language], ...] of further holders named by the game master
    taken_at: Optional[datetime] = _time()


class SignupRequest(SQLModel, table=True):
    """A JOIN or TAKEOVER (or a player's ABSENCE or SET, which a forged From must not
    change either) waiting for its confirmation: the one-time code mailed to
    ``address`` is kept only as a hash, used once, and expires. The rows are also the count
    behind the limit of one confirmation mail per address and hour."""

    __tablename__ = "signup_request"
    id: Optional[int] = Field(default=None, primary_key=True)
    game_id: Optional[str] = Field(default=None, index=True, foreign_key="game.id")  # None: a player's setting
    seat: str = ""  # "" for a JOIN that takes any free seat
    address: str = Field(index=True)
    kind: str = "join"  # join | takeover | absence | absence-cancel | zone | language
    payload: str = ""  # what a setting becomes ("2026-12-20 2027-01-06", "Europe/London", "it"); JOIN/TAKEOVER: the language asked in
    code_hash: str = ""
    status: str = Field(default="pending", index=True)  # pending | confirmed | awaiting | done | refused | void
    mailed: bool = False  # a confirmation mail went to the address
    created_at: Optional[datetime] = _time()
    expires_at: Optional[datetime] = _time()
    used_at: Optional[datetime] = _time()


class Vote(SQLModel, table=True):
    """A seat's DRAW or CONCEDE (pbem.service.votes). A draw vote stands until withdrawn
    (``withdrawn_at``); a concession is final. Rows are kept: the archive lists them."""

    __tablename__ = "vote"
    id: Optional[int] = Field(default=None, primary_key=True)
    game_id: str = Field(index=True, foreign_key="game.id")
    seat: str
    kind: str  # draw | concede
    address: str = ""  # the holder who voted
    phase_seq: int = 0
    cast_at: Optional[datetime] = _time()
    withdrawn_at: Optional[datetime] = _time()


class League(SQLModel, table=True):
    """A league or tournament of one game kind (pbem.service.leagues): round robin or Swiss,
    its games made round by round (``pbem league pair``) with the league's deadline policy."""

    __tablename__ = "league"
    id: str = Field(primary_key=True)  # e.g. "l3"
    name: str
    kind: str = Field(index=True)
    format: str = "swiss"  # round-robin | swiss
    rounds: int = 0  # how many rounds the league plays
    seats_per_game: int = 2
    round: int = 0  # the last round paired (0: none yet)
    status: str = Field(default="open", index=True)  # open | running | finished
    signup_open: bool = False  # JOIN LEAGUE by mail until the first round is paired
    deadline: str = ""  # the games' turn length ("" : the configuration's)
    options_json: str = _text("{}")
    policy_json: str = _text("{}")  # the game master's policy overrides for every game of the league
    created_at: Optional[datetime] = _time()


class LeagueMember(SQLModel, table=True):
    """A player of a league, in the order they joined (the last tie-break of the standings)."""

    __tablename__ = "league_member"
    __table_args__ = (UniqueConstraint("league_id", "player_id"),)
    id: Optional[int] = Field(default=None, primary_key=True)
    league_id: str = Field(index=True, foreign_key="league.id")
    player_id: int = Field(foreign_key="player.id")
    joined_at: Optional[datetime] = _time()


class LeagueGame(SQLModel, table=True):
    """A game of a league's round; a bye is a row without a game (``game_id`` None, board 0).
    A board is written with its round, its players in ``table_json``, before its game is
    made (``game_id`` None until then), so that a pairing cut short is finished, not redone."""

    __tablename__ = "league_game"
    id: Optional[int] = Field(default=None, primary_key=True)
    league_id: str = Field(index=True, foreign_key="league.id")
    round: int
    board: int = 0  # the game's number within its round (0 for a bye)
    game_id: Optional[str] = Field(default=None, index=True, foreign_key="game.id")
    bye_player_id: Optional[int] = Field(default=None, foreign_key="player.id")
    table_json: str = ""  # the board's player ids in seat order (JSON list)


class Observer(SQLModel, table=True):
    """An address following a game it does not play in (WATCH, ``pbem game watch``): it gets
    every report with the spectator view, the game's ``observer_delay`` turns late.
    ``seen_seq``: the last phase its reports have shown (the delay holds the rest back)."""

    id: Optional[int] = Field(default=None, primary_key=True)
    game_id: str = Field(index=True, foreign_key="game.id")
    address: str = Field(index=True)
    language: str = "en"
    status: str = Field(default="active", index=True)  # active | pending (observers=approved) | left
    seen_seq: int = -1
    created_at: Optional[datetime] = _time()


class PressRow(SQLModel, table=True):
    """One message between seats (PRESS in a seat's block), kept for HISTORY PRESS and the
    archive after the game's end. ``mode``: white (signed with the seat) or grey (the sender
    is recorded here, never told to the addressees)."""

    __tablename__ = "press"
    id: Optional[int] = Field(default=None, primary_key=True)
    game_id: str = Field(index=True, foreign_key="game.id")
    turn: int = 0
    sender_seat: str
    sender_address: str = Field(index=True)
    to_json: str = _text("[]")  # the addressed seats' names (PRESS ALL: every other seat)
    everyone: bool = False  # PRESS ALL
    mode: str = "white"  # white | grey
    body: str = Field(default="", sa_column=Column(SealedText(), nullable=False))  # encrypted at rest
    created_at: Optional[datetime] = _time()


#: Sealed mail is ciphertext: PostgreSQL would try to compress each value on every insert and
#: keep it as it was (4.4 ms of the server's CPU a 230 KB report, 0.4 ms stored as it is).
#: A fresh database gets it with its tables; revision 0008 gives it to the ones made before.
UNCOMPRESSED = (("outbox", "raw"), ("inbound", "held"))
for _table, _column in UNCOMPRESSED:
    event.listen(SQLModel.metadata.tables[_table], "after_create",
                 DDL(f"ALTER TABLE {_table} ALTER COLUMN {_column} SET STORAGE EXTERNAL").execute_if(
                     dialect="postgresql"))
