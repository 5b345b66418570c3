"""The game state: frozen dataclasses, encoded with `pbem.core.codec`.

A party's corteo is the chain of squares it occupies, front (head of the snake) first; one
of them holds the committee (the organising committee, the player's miniature), the others
hold militants. Parts cut off from the committee are kept as headless chains. Squares are
the tombola numbers 1-90 (`board.BOARD`).
"""

from __future__ import annotations

from dataclasses import dataclass

VERSION = "1"
SEATS = ("red", "blue", "green", "yellow", "white", "black")


@dataclass(frozen=True)
class Corteo:
    squares: tuple[int, ...]  # the front (head of the snake) first, the tail last
    committee: int = 0  # index in ``squares`` of the committee
    behind: int | None = None  # a corteo of one square: the square it came from (its facing)

    @property
    def militants(self) -> int:
        return max(0, len(self.squares) - 1)

    @property
    def front(self) -> int:
        return self.squares[0]

    @property
    def committee_square(self) -> int:
        return self.squares[self.committee]

    @property
    def back(self) -> int | None:
        """The square behind the front: the corteo may not step back onto it."""
        return self.squares[1] if len(self.squares) > 1 else self.behind


@dataclass(frozen=True)
class Party:
    seat: str
    home: int  # the party seat drawn at set-up
    corteo: Corteo
    headless: tuple[tuple[int, ...], ...] = ()  # parts cut off from the committee
    captured: tuple[int, ...] = ()  # numbers recruited (in order)
    arrested: int = 0  # militants off the board

    @property
    def isolated(self) -> int:
        return sum(len(h) for h in self.headless)


@dataclass(frozen=True)
class Guard:
    piece: str  # pawn, bishop, knight, rook, queen, king (data/police.toml)
    square: int | None  # None: on the table, not yet on a square


@dataclass(frozen=True)
class Action:
    """One action of a move, as played."""

    kind: str  # "step" | "jump" | "along"
    squares: tuple[int, ...]  # step: (to,); jump: (over, to); along: (from, to) of the committee
    points: int
    forward: bool = True  # along: towards the front


@dataclass(frozen=True)
class Clash:
    attacker: str
    attacked: str
    at: int  # the attacked committee's square: the cut
    attacker_at: int
    committee_to: int | None  # the attacked committee's new square (None: nowhere to go, no split)
    kept: tuple[int, ...] = ()  # the part led by the committee, committee first
    headless: tuple[int, ...] = ()  # the part left without leadership
    dismissed: tuple[str, ...] = ()  # guards that left the board: the nearest, when a corteo of 7 fell short


@dataclass(frozen=True)
class Rejoin:
    seat: str
    part: tuple[int, ...]  # the headless part taken up again


@dataclass(frozen=True)
class Draw:
    number: int
    placed: bool  # on its square, or waiting in the centre (its square was covered)


@dataclass(frozen=True)
class MoveRecord:
    seat: str
    round: int
    roll: int
    mode: str  # "moved" | "stayed" | "default" | "blocked"
    start: int  # the front's square at the start
    actions: tuple[Action, ...] = ()
    points: int = 0
    captured: tuple[int, ...] = ()
    returned: int = 0  # arrested militants back with a recruit
    clashes: tuple[Clash, ...] = ()
    rejoins: tuple[Rejoin, ...] = ()
    refills: tuple[Draw, ...] = ()

    @property
    def front_path(self) -> tuple[int, ...]:
        out = [self.start]
        for a in self.actions:
            if a.kind != "along":
                out.extend(a.squares)
        return tuple(out)


@dataclass(frozen=True)
class PoliceAct:
    piece: str
    number: int | None  # the number drawn (None: the bag was empty)
    origin: int | None  # where the guard stood
    square: int | None  # where it stands now
    result: str  # "block" | "arrest" | "committee" | "held" | "empty-bag"
    seat: str | None = None  # whose militant was arrested, or whose committee was found
    dismissed: tuple[str, ...] = ()  # guards that left the board because the arrest cut a corteo of 7
    rejoined: tuple[tuple[int, ...], ...] = ()  # headless parts the corteo's new head touches, taken up


@dataclass(frozen=True)
class PoliceRecord:
    round: int
    entered: tuple[str, ...] = ()
    left: tuple[str, ...] = ()
    acts: tuple[PoliceAct, ...] = ()


@dataclass(frozen=True)
class SetupRecord:
    homes: tuple[tuple[str, int], ...]
    indifferent: tuple[int, ...]


@dataclass(frozen=True)
class Score:
    seat: str
    active: int
    isolated: int
    arrested: int
    twelfth: bool
    captured: int
    points: int


@dataclass(frozen=True)
class Result:
    result: str  # "win" | "draw"
    winners: tuple[str, ...]
    reason: str  # "bag" | "twelve" | "rounds"
    scores: tuple[Score, ...]


@dataclass(frozen=True)
class State:
    version: str
    seats: tuple[str, ...]
    max_rounds: int
    stage: str = "setup"  # "setup" | "move" | "police" | "over"
    round: int = 0
    to_move: str | None = None
    roll: int | None = None  # the die rolled for ``to_move`` when its turn began
    bag: tuple[int, ...] = ()
    numbers: tuple[int, ...] = ()  # indifferent numbers on their squares
    waiting: tuple[int, ...] = ()  # numbers waiting on the central square
    parties: tuple[Party, ...] = ()
    guards: tuple[Guard, ...] = ()
    placed: tuple[int, ...] = ()  # waiting numbers put on the board when this turn began
    setup: SetupRecord | None = None
    last_move: MoveRecord | None = None
    police: PoliceRecord | None = None
    result: Result | None = None

    def party(self, seat: str) -> Party:
        for p in self.parties:
            if p.seat == seat:
                return p
        raise KeyError(seat)


CODEC_TYPES: tuple[type, ...] = (
    Corteo, Party, Guard, Action, Clash, Rejoin, Draw, MoveRecord, PoliceAct, PoliceRecord, SetupRecord,
    Score, Result, State,
)
