"""A mutable working copy of the board, and a player's move played on it step by step.

`Table` holds the pieces (cortei, headless parts, numbers, guards) and the operations that
change them whoever acts: a corteo cut in two (a clash, an arrest) and a headless part taken
up again. `Work` is one player's move: every check of a step, a jump or a move of the
committee along its corteo returns a message (or None when legal) without changing anything,
and the matching ``do_*`` applies it. The parser, the resolution, the order template and the
random and automatic orders all use it, so they agree by construction.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace

from pbem.core.i18n import Message, msg
from pbem.games.arditi.board import BOARD
from pbem.games.arditi.guards import nearest_guard
from pbem.games.arditi.state import (
    Action,
    Clash,
    Corteo,
    Guard,
    Party,
    Rejoin,
    State,
)
from pbem.games.arditi.tables import NUMBERS, PIECE


@dataclass
class Line:
    """A corteo being played: squares front first, the committee's index, the lone facing."""

    squares: list[int]
    committee: int = 0
    behind: int | None = None

    @property
    def front(self) -> int:
        return self.squares[0]

    @property
    def back(self) -> int | None:
        return self.squares[1] if len(self.squares) > 1 else self.behind

    @property
    def committee_square(self) -> int:
        return self.squares[self.committee]

    def frozen(self) -> Corteo:
        behind = self.behind if len(self.squares) == 1 else None
        return Corteo(tuple(self.squares), self.committee, behind)

    def advance(self, ahead: list[int], drop_tail: bool) -> None:
        """The front gains ``ahead`` (the new front first); the tail is lifted if ``drop_tail``.

        Which piece moves ("per ogni passo devi togliere l'ultima pedina in coda e disporla
        sopra una delle tre case libere confinanti con la testa"): a committee at the head is
        the head and moves (the last militant takes the square it leaves); a committee inside
        the corteo stays on its square, since only the last piece moves; a committee that is
        itself the last piece is the one lifted and put at the head ("In condizioni normali
        l'ultima pedina del corteo viene spostata in testa").
        """
        last = len(self.squares) - 1
        c = self.committee
        self.squares = ahead + (self.squares[:-1] if drop_tail else self.squares)
        if c == 0 or (drop_tail and c == last):
            self.committee = 0
        else:
            self.committee = c + len(ahead)


@dataclass
class Side:
    seat: str
    home: int
    line: Line
    headless: list[list[int]] = field(default_factory=list)
    captured: list[int] = field(default_factory=list)
    arrested: int = 0

    def frozen(self) -> Party:
        return Party(self.seat, self.home, self.line.frozen(), tuple(tuple(h) for h in self.headless),
                     tuple(self.captured), self.arrested)

    def copy(self) -> Side:
        return Side(self.seat, self.home, Line(list(self.line.squares), self.line.committee, self.line.behind),
                    [list(h) for h in self.headless], list(self.captured), self.arrested)


class Table:
    """Every piece on the board, mutable."""

    def __init__(self, state: State | None = None) -> None:
        self.sides: dict[str, Side] = {}
        self.order: tuple[str, ...] = ()
        self.numbers: set[int] = set()
        self.guards: dict[int, str] = {}  # square -> piece
        self.unplaced: list[str] = []  # guards in play that stand on no square (yet)
        self.at: dict[int, str] = {}  # square -> seat, for every corteo piece (led or headless)
        if state is not None:
            self.order = state.seats
            for p in state.parties:
                c = p.corteo
                side = Side(p.seat, p.home, Line(list(c.squares), c.committee, c.behind),
                            [list(h) for h in p.headless], list(p.captured), p.arrested)
                self.sides[p.seat] = side
                for sq in c.squares:
                    self.at[sq] = p.seat
                for h in p.headless:
                    for sq in h:
                        self.at[sq] = p.seat
            self.numbers = set(state.numbers)
            self.guards = {g.square: g.piece for g in state.guards if g.square is not None}
            self.unplaced = [g.piece for g in state.guards if g.square is None]

    def copy(self) -> Table:
        t = Table.__new__(Table)
        t.sides = {s: side.copy() for s, side in self.sides.items()}
        t.order = self.order
        t.numbers = set(self.numbers)
        t.guards = dict(self.guards)
        t.unplaced = list(self.unplaced)
        t.at = dict(self.at)
        return t

    def parties(self) -> tuple[Party, ...]:
        return tuple(self.sides[s].frozen() for s in self.order if s in self.sides)

    def guard_list(self) -> tuple[Guard, ...]:
        """The guards in play, lowest rank first."""
        out = [Guard(p, sq) for sq, p in self.guards.items()] + [Guard(p, None) for p in self.unplaced]
        return tuple(sorted(out, key=lambda g: PIECE[g.piece].rank))

    # -- what is where ---------------------------------------------------------------
    def occupant(self, sq: int) -> str | None:
        """"number", "guard", a seat (a piece of its corteo), or None for a free square."""
        if sq in self.numbers:
            return "number"
        if sq in self.guards:
            return "guard"
        return self.at.get(sq)

    def free(self, sq: int) -> bool:
        return sq not in self.numbers and sq not in self.guards and sq not in self.at

    def committee_at(self, sq: int) -> str | None:
        for seat, side in self.sides.items():
            if side.line.squares and side.line.committee_square == sq:
                return seat
        return None

    def own_neighbours(self, seat: str, sq: int) -> int:
        return sum(1 for n in BOARD.neighbours(sq) if self.at.get(n) == seat)

    def coils(self, seat: str, add: list[int], remove: list[int]) -> int | None:
        """The coil rule ("Nessuna pedina può trovarsi su casa confinante nello stesso momento
        con più di altre 2 pedine dello stesso colore"): after adding and removing pieces of
        ``seat``, a square of its colour next to more than 2 others of its colour, or None.
        Only the added pieces and their neighbours can have gained a neighbour."""
        gone = set(remove) - set(add)
        added = set(add)

        def own(q: int) -> bool:
            return (self.at.get(q) == seat and q not in gone) or q in added

        check = set(added)
        for a in added:
            check.update(n for n in BOARD.neighbours(a) if own(n))
        for q in sorted(check):
            if sum(1 for n in BOARD.neighbours(q) if own(n)) > 2:
                return q
        return None

    # -- the police on the board ------------------------------------------------------
    def guards_due(self) -> int:
        """One guard for each corteo (the part with the committee) of at least 7 militants."""
        return sum(1 for s in self.sides.values() if len(s.line.squares) - 1 >= NUMBERS.police_threshold)

    def remove_guard(self, piece: str) -> None:
        for sq, p in list(self.guards.items()):
            if p == piece:
                del self.guards[sq]
        if piece in self.unplaced:
            self.unplaced.remove(piece)

    def dismiss_guards(self, cut: int, pieces: Sequence[int]) -> tuple[str, ...]:
        """A corteo was just dismembered at ``cut`` into parts made of ``pieces``: while there
        are more guards than cortei of 7, the nearest guard leaves ("Il numero di guardie sul
        tabellone dev'essere sempre pari al numero dei cortei ..., se un corteo viene smembrato
        la guardia più vicina può essere tolta dal tabellone")."""
        gone: list[str] = []
        while len(self.guards) + len(self.unplaced) > self.guards_due():
            piece = nearest_guard(self.guard_list(), pieces, cut)
            self.remove_guard(piece)
            gone.append(piece)
        return tuple(gone)

    # -- cutting a corteo in two ---------------------------------------------------------
    def remove_piece(self, sq: int) -> tuple[str, bool, tuple[int, ...]] | None:
        """Take the militant on ``sq`` off the board (an arrest). Returns (seat, was_led, the
        pieces of the parts it was cut into), or None when there is no militant there (a
        committee is not a militant)."""
        seat = self.at.get(sq)
        if seat is None:
            return None
        side = self.sides[seat]
        line = side.line
        if sq in line.squares:
            j = line.squares.index(sq)
            if j == line.committee:
                return None
            front_part, back_part = line.squares[:j], line.squares[j + 1:]
            if line.committee < j:
                behind = line.behind if len(front_part) > 1 else line.squares[1]
                if back_part:
                    side.headless.append(back_part)
                side.line = Line(front_part, line.committee, behind if len(front_part) == 1 else None)
            else:
                if front_part:
                    side.headless.append(front_part)
                lone_behind = BOARD.beyond(sq, back_part[0]) if len(back_part) == 1 else None
                side.line = Line(back_part, line.committee - j - 1, lone_behind)
            del self.at[sq]
            return seat, True, tuple(front_part + back_part)
        for i, part in enumerate(side.headless):
            if sq in part:
                k = part.index(sq)
                pieces = [p for p in (part[:k], part[k + 1:]) if p]
                side.headless[i:i + 1] = pieces
                del self.at[sq]
                return seat, False, tuple(part[:k] + part[k + 1:])
        return None

    def split_at_committee(self, attacker: str, attacked: str) -> Clash:
        """A clash: the attacked committee leaves its square (the cut) and goes to the rear end
        of the larger part, onto a free square next to that end; that part marches from there
        (its facing reversed); the other part is left without leadership. When a corteo of 7
        falls short of 7, the nearest guard leaves the board."""
        side = self.sides[attacked]
        line = side.line
        c = line.committee
        cut = line.squares[c]
        front_part = line.squares[:c]
        back_part = line.squares[c + 1:]
        # Each part's rear end: for the front part the end at the cut, for the back part the
        # tail; with the square on the other side of that end (the cut for a part of one).
        parts = [
            (front_part, front_part[-2] if len(front_part) > 1 else cut),
            (back_part, back_part[-2] if len(back_part) > 1 else cut),
        ]
        # The larger part first; on a tie the back part (the one that followed the committee).
        order = [1, 0] if len(back_part) >= len(front_part) else [0, 1]
        attacker_at = self.sides[attacker].line.committee_square
        for i in order:
            part, before = parts[i]
            other = parts[1 - i][0]
            spot = self._spot_beyond(attacked, part[-1], before, cut, other)
            if spot is None:
                continue
            chain = [spot] + part[::-1]
            del self.at[cut]
            self.at[spot] = attacked
            side.line = Line(chain, 0, None)
            side.headless.append(list(other))
            dismissed = self.dismiss_guards(cut, chain + other)
            return Clash(attacker, attacked, cut, attacker_at, spot, tuple(chain), tuple(other), dismissed)
        return Clash(attacker, attacked, cut, attacker_at, None)

    def _spot_beyond(self, seat: str, end: int, before: int, cut: int, other: list[int]) -> int | None:
        """Where ``seat``'s committee goes past the end ``end`` of a part (``before`` is the
        square on the other side of ``end``): straight on if it will do, else the free
        neighbour with the lowest number that will. It will do if it is free and not the cut;
        if it keeps the coil rule ("Nessuna pedina può trovarsi su casa confinante nello stesso
        momento con più di altre 2 pedine dello stesso colore"), the cut being empty; and if it
        touches no end of a headless part of its colour, ``other`` (the part it leaves) included:
        a head next to an end is rejoined "da quel momento", so the corteo would not be split."""
        ends = {p[0] for p in self.sides[seat].headless} | {p[-1] for p in self.sides[seat].headless}
        if other:
            ends |= {other[0], other[-1]}

        def will_do(n: int | None) -> bool:
            return (n is not None and n != cut and self.free(n) and not any(BOARD.adjacent(n, e) for e in ends)
                    and self.coils(seat, [n], [cut]) is None)

        straight = BOARD.beyond(before, end)
        if will_do(straight):
            return straight
        for n in sorted(BOARD.neighbours(end)):
            if will_do(n):
                return n
        return None

    # -- rejoining -------------------------------------------------------------------
    def rejoin(self, seat: str) -> list[Rejoin]:
        """Headless parts with an end next to the corteo's front (the head of the snake) are
        taken up again — every one of them: "bisogna portare la testa del 'serpente' su casa
        confinante con una delle due estremità del gruppo rimasto isolato, da quel momento può
        tornare a muoversi come un corpo unico". A part is taken up in front: the front now
        runs through it and its far end becomes the new front. A lone committee (a corteo of
        one square) can take up two parts at once, one on each side: the larger leads (on a
        tie the one left headless first) and the other becomes its tail. (A longer corteo's
        front touches its second square, so the coil rule leaves room for one part only.)
        The new front may in turn touch another part: that one is taken up too."""
        side = self.sides[seat]
        done: list[Rejoin] = []
        while side.headless:
            front = side.line.front
            touching = [i for i, part in enumerate(side.headless)
                        if BOARD.adjacent(front, part[0]) or BOARD.adjacent(front, part[-1])]
            if not touching:
                break
            # The larger part first; on a tie the one left headless first (listed first).
            touching.sort(key=lambda i: (-len(side.headless[i]), i))
            lead = side.headless[touching[0]]
            follow = side.headless[touching[1]] if len(touching) > 1 and len(side.line.squares) == 1 else None
            lead_chain = list(reversed(lead)) if BOARD.adjacent(front, lead[0]) else list(lead)
            line = side.line
            squares = lead_chain + line.squares
            if follow is not None:
                squares += list(follow) if BOARD.adjacent(front, follow[0]) else list(reversed(follow))
            side.line = Line(squares, line.committee + len(lead_chain), None)
            done.append(Rejoin(seat, tuple(lead)))
            if follow is not None:
                done.append(Rejoin(seat, tuple(follow)))
            side.headless = [p for p in side.headless if p is not lead and p is not follow]
        return done


class Work(Table):
    """One seat's move on a copy of the table."""

    def __init__(self, state: State, seat: str) -> None:
        super().__init__(state)
        self.seat = seat
        self.roll = state.roll or 0
        self.used = 0
        self.along_forward: bool | None = None
        self.actions: list[Action] = []
        self.captured: list[int] = []
        self.returned = 0
        self.clashes: list[Clash] = []
        self.rejoins: list[Rejoin] = []
        # Parts next to the front when the turn begins are taken up at once.
        self.rejoins.extend(self.rejoin(seat))
        self.touched: set[int] = {self.line.front}
        self.start = self.line.front

    def clone(self) -> Work:
        w = Work.__new__(Work)
        w.sides = {s: side.copy() for s, side in self.sides.items()}
        w.order = self.order
        w.numbers = set(self.numbers)
        w.guards = dict(self.guards)
        w.unplaced = list(self.unplaced)
        w.at = dict(self.at)
        w.seat = self.seat
        w.roll = self.roll
        w.used = self.used
        w.along_forward = self.along_forward
        w.actions = list(self.actions)
        w.captured = list(self.captured)
        w.returned = self.returned
        w.clashes = list(self.clashes)
        w.rejoins = list(self.rejoins)
        w.touched = set(self.touched)
        w.start = self.start
        return w

    @property
    def line(self) -> Line:
        return self.sides[self.seat].line

    @property
    def left(self) -> int:
        return self.roll - self.used

    def ahead(self) -> int | None:
        """The square straight ahead of the front (None: no facing yet, any way is ahead)."""
        back = self.line.back
        return None if back is None else BOARD.beyond(back, self.line.front)

    # -- the coil rule ----------------------------------------------------------------
    def _coil(self, add: list[int], remove: list[int]) -> int | None:
        return self.coils(self.seat, add, remove)

    # -- a step ---------------------------------------------------------------------
    def check_step(self, n: int) -> Message | None:
        line = self.line
        f = line.front
        if not BOARD.is_square(n):
            return msg("err-not-a-square", token=n, size=BOARD.size)
        if not BOARD.adjacent(f, n):
            return msg("err-not-adjacent", square=n, front=f)
        if n == line.back:
            return msg("err-reverse", square=n)
        if n in self.touched:
            return msg("err-touched", square=n)
        tail = line.squares[-1]
        what = self.occupant(n)
        if what is not None and not (n == tail and len(line.squares) > 2):
            if what == "number":
                return msg("err-step-number", square=n)
            if what == "guard":
                return msg("err-step-guard", square=n, piece=msg("piece-" + self.guards[n]))
            return msg("err-step-occupied", square=n, seat=msg("seat-" + what))
        if self.left < 1:
            return msg("err-no-points", roll=self.roll)
        bad = self._coil([n], [tail])
        if bad is not None:
            return msg("err-coil", square=n, at=bad)
        return None

    def do_step(self, n: int) -> None:
        line = self.line
        tail = line.squares[-1]
        old_front = line.front
        was = line.committee_square
        if self.at.get(tail) == self.seat:
            del self.at[tail]
        line.advance([n], drop_tail=True)
        line.behind = old_front if len(line.squares) == 1 else None
        self.at[n] = self.seat
        self.touched.add(n)
        self.used += 1
        self.actions.append(Action("step", (n,), 1))
        self._after_front_moved(was)

    # -- a jump ---------------------------------------------------------------------
    def jump_over(self, land: int) -> int | None:
        """The square between the front and ``land`` on a straight line, if any."""
        f = self.line.front
        for x in BOARD.neighbours(f):
            if BOARD.beyond(f, x) == land:
                return x
        return None

    def check_jump(self, land: int) -> Message | None:
        line = self.line
        f = line.front
        if not BOARD.is_square(land):
            return msg("err-not-a-square", token=land, size=BOARD.size)
        over = self.jump_over(land)
        if over is None:
            return msg("err-jump-line", square=land, front=f)
        ahead = self.ahead()
        if ahead is not None and over != ahead:
            return msg("err-jump-frontal", square=over, ahead=ahead)
        if over not in self.numbers:
            return msg("err-jump-nothing", square=over)
        if land in self.numbers:
            return msg("err-jump-two", square=over, land=land)
        if not self.free(land):
            what = self.occupant(land)
            if what == "guard":
                return msg("err-jump-guard", square=land, piece=msg("piece-" + self.guards[land]))
            return msg("err-jump-landing", square=land, seat=msg("seat-" + str(what)))
        if over in self.touched or land in self.touched:
            return msg("err-touched", square=over if over in self.touched else land)
        if self.left < NUMBERS.jump_cost:
            return msg("err-jump-points", left=self.left, cost=NUMBERS.jump_cost)
        returning = self.sides[self.seat].arrested > 0
        bad = self._coil([land, over], [] if returning else [line.squares[-1]])
        if bad is not None:
            return msg("err-coil", square=land, at=bad)
        return None

    def do_jump(self, land: int) -> None:
        over = self.jump_over(land)
        assert over is not None
        side = self.sides[self.seat]
        line = side.line
        tail = line.squares[-1]
        was = line.committee_square
        returning = side.arrested > 0
        if returning:
            side.arrested -= 1
            self.returned += 1
        elif self.at.get(tail) == self.seat:
            del self.at[tail]
        line.advance([land, over], drop_tail=not returning)
        line.behind = None
        self.numbers.discard(over)
        self.at[land] = self.seat
        self.at[over] = self.seat
        side.captured.append(over)
        self.captured.append(over)
        self.touched.update((over, land))
        self.used += NUMBERS.jump_cost
        self.actions.append(Action("jump", (over, land), NUMBERS.jump_cost))
        self._after_front_moved(was)

    # -- the committee along its corteo ---------------------------------------------
    def along_room(self, forward: bool) -> int:
        line = self.line
        return line.committee if forward else len(line.squares) - 1 - line.committee

    def check_along(self, count: int, forward: bool) -> Message | None:
        if count < 1:
            return msg("err-along-count")
        if self.along_forward is not None and self.along_forward != forward:
            return msg("err-along-direction")
        room = self.along_room(forward)
        if room == 0:
            return msg("err-along-end-front" if forward else "err-along-end-back")
        if count > room:
            return msg("err-along-range", count=count, room=room,
                       way=msg("way-forward" if forward else "way-back"))
        if count > self.left:
            return msg("err-along-points", count=count, left=self.left)
        return None

    def do_along(self, count: int, forward: bool) -> None:
        line = self.line
        origin = line.committee_square
        line.committee += -count if forward else count
        self.along_forward = forward
        self.used += count
        self.actions.append(Action("along", (origin, line.committee_square), count, forward))
        self._clash()

    # -- consequences ---------------------------------------------------------------
    def _after_front_moved(self, committee_was: int) -> None:
        """Parts the head now touches are taken up; if the committee itself moved (at the
        head, or lifted from the tail to the head), it may have come next to another one."""
        self.rejoins.extend(self.rejoin(self.seat))
        if self.line.committee_square != committee_was:
            self._clash()

    def attackable(self) -> list[str]:
        """Seats whose committee, inside its corteo (not at either end), is next to ours."""
        mine = self.line.committee_square
        out = []
        for seat in self.order:
            if seat == self.seat or seat not in self.sides:
                continue
            line = self.sides[seat].line
            if 0 < line.committee < len(line.squares) - 1 and BOARD.adjacent(mine, line.committee_square):
                out.append(seat)
        return out

    def _clash(self) -> None:
        for seat in self.attackable():
            self.clashes.append(self.split_at_committee(self.seat, seat))


def frozen_state(state: State, table: Table, **changes: object) -> State:
    """``state`` with the pieces of ``table`` (cortei, headless parts, numbers, guards)."""
    return replace(state, parties=table.parties(), numbers=tuple(sorted(table.numbers)),
                   guards=table.guard_list(), **changes)  # type: ignore[arg-type]
