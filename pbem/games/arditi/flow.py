"""The course of the game: set-up, the end of a player's move (recruits replaced from the
bag), the start of the next turn (waiting numbers, the die), the police at the end of each
round, the end of the game and the score.

All chance goes through the `Dice`: a die for each turn, and every draw from the bag is a
roll over the numbers left in it (``dice.roll(len(bag))``; the last number left is taken
without a roll).
"""

from __future__ import annotations

from dataclasses import replace

from pbem.core.dice import Dice
from pbem.games.arditi.position import Table, Work, frozen_state
from pbem.games.arditi.state import (
    Corteo,
    Draw,
    MoveRecord,
    Party,
    PoliceAct,
    PoliceRecord,
    Result,
    Score,
    SetupRecord,
    State,
)
from pbem.games.arditi.tables import NUMBERS, PIECES


def draw(bag: list[int], dice: Dice, purpose: str) -> int | None:
    """A number drawn from the bag (sorted list, changed in place); None when it is empty.

    The die says which of the numbers left, counted from the smallest: a d75 rolling 3 with
    1, 4, 9, ... left draws 9.
    """
    if not bag:
        return None
    if len(bag) == 1:
        return bag.pop()
    return bag.pop(dice.roll(len(bag), f"draw from the bag (rank among the numbers left): {purpose}") - 1)


# -- set-up ------------------------------------------------------------------------------


def setup(state: State, dice: Dice) -> State:
    """Each player draws the number of its party seat; then 12 indifferent are drawn."""
    bag = list(range(1, 91))
    homes: list[tuple[str, int]] = []
    for seat in state.seats:
        n = draw(bag, dice, f"party seat of {seat}")
        assert n is not None
        homes.append((seat, n))
    indifferent: list[int] = []
    for _ in range(NUMBERS.indifferent):
        n = draw(bag, dice, "indifferent")
        assert n is not None
        indifferent.append(n)
    parties = tuple(Party(seat, home, Corteo((home,))) for seat, home in homes)
    new = replace(state, stage="move", round=1, bag=tuple(bag), numbers=tuple(sorted(indifferent)),
                  parties=parties, setup=SetupRecord(tuple(homes), tuple(indifferent)))
    return begin_turn(new, state.seats[0], dice)


# -- turns -------------------------------------------------------------------------------


def begin_turn(state: State, seat: str, dice: Dice) -> State:
    """Waiting numbers whose square is free go on the board; the die is rolled for ``seat``."""
    table = Table(state)
    placed = []
    for n in sorted(state.waiting):
        if table.free(n):
            table.numbers.add(n)
            placed.append(n)
    waiting = tuple(n for n in state.waiting if n not in placed)
    roll = dice.roll(NUMBERS.die, f"die for {seat}")
    return frozen_state(state, table, stage="move", to_move=seat, roll=roll, waiting=waiting,
                        placed=tuple(placed))


def finish_move(state: State, work: Work, mode: str, dice: Dice) -> State:
    """The move is made: each recruit is replaced by a number drawn from the bag (on its
    square, or waiting in the centre when a corteo covers it); then the game goes on."""
    seat = work.seat
    bag = list(state.bag)
    refills: list[Draw] = []
    for _ in work.captured:
        n = draw(bag, dice, f"a new indifferent after {seat}'s recruit")
        if n is None:
            break
        if work.free(n):
            work.numbers.add(n)
            refills.append(Draw(n, True))
        else:
            refills.append(Draw(n, False))
    record = MoveRecord(seat, state.round, state.roll or 0, mode, work.start, tuple(work.actions), work.used,
                        tuple(work.captured), work.returned, tuple(work.clashes), tuple(work.rejoins),
                        tuple(refills))
    waiting = tuple(sorted(state.waiting + tuple(d.number for d in refills if not d.placed)))
    new = frozen_state(state, work, bag=tuple(bag), waiting=waiting, last_move=record, placed=())
    if any(p.corteo.militants >= NUMBERS.winning_length for p in new.parties):
        return game_over(new, "twelve")
    if not new.bag:
        return game_over(new, "bag")
    index = state.seats.index(seat)
    if index + 1 < len(state.seats):
        return begin_turn(new, state.seats[index + 1], dice)
    if police_needed(new):
        return replace(new, stage="police", to_move=None, roll=None)
    return new_round(new, dice)


def new_round(state: State, dice: Dice) -> State:
    if state.round >= state.max_rounds:
        return game_over(state, "rounds")
    return begin_turn(replace(state, round=state.round + 1), state.seats[0], dice)


# -- the police --------------------------------------------------------------------------


def guards_due(state: State) -> int:
    """One guard for each corteo of at least 7 militants."""
    return Table(state).guards_due()


def police_needed(state: State) -> bool:
    return bool(state.guards) or guards_due(state) > 0


def police_step(state: State, dice: Dice) -> State:
    """The round's police step ("la ronda"): the guards on the board are made as many as the
    cortei of at least 7 militants (the lowest-ranked enter first); then each guard, from the
    lowest rank up, draws a number and goes to that square: a free square is a roadblock, a
    militant there is arrested (and its corteo is cut; if a corteo of 7 falls short, the
    nearest guard leaves at once, and does not move if its turn had not come)."""
    table = Table(state)
    bag = list(state.bag)
    due = table.guards_due()
    left: list[str] = []
    # Guards leave as soon as a corteo is dismembered (`Table.dismiss_guards`), so there is
    # nothing to take away here, except in a game saved before they did: highest rank first.
    while len(table.guards) + len(table.unplaced) > due:
        gone = table.guard_list()[-1].piece
        table.remove_guard(gone)
        left.append(gone)
    entered: list[str] = []
    present = {g.piece for g in table.guard_list()}
    for piece in PIECES:
        if len(present) >= due:
            break
        if piece.name not in present:
            table.unplaced.append(piece.name)
            present.add(piece.name)
            entered.append(piece.name)
    acts: list[PoliceAct] = []
    for g in table.guard_list():
        if g.piece not in {h.piece for h in table.guard_list()}:
            continue  # it left the board when an earlier guard's arrest cut a corteo
        n = draw(bag, dice, f"police {g.piece}")
        if n is None:
            acts.append(PoliceAct(g.piece, None, g.square, g.square, "empty-bag"))
            continue
        leader = table.committee_at(n)
        if leader is not None or n in table.numbers or n in table.guards:
            # A committee is not a militant: the guard does not go there and stays where it
            # was. (A number or a guard cannot be there: their numbers are out of the bag.)
            acts.append(PoliceAct(g.piece, n, g.square, g.square, "committee" if leader else "held", leader))
            continue
        table.remove_guard(g.piece)
        table.guards[n] = g.piece
        arrested = table.remove_piece(n)
        if arrested is not None:
            seat, led, pieces = arrested
            table.sides[seat].arrested += 1
            # Cut behind its head, the committee's part has a new head; one next to an end of a
            # headless part takes it up "da quel momento" (not at the next turn, which may never come).
            rejoined = tuple(r.part for r in table.rejoin(seat)) if led else ()
            dismissed = table.dismiss_guards(n, pieces)
            acts.append(PoliceAct(g.piece, n, g.square, n, "arrest", seat, dismissed, rejoined))
        else:
            acts.append(PoliceAct(g.piece, n, g.square, n, "block"))
    record = PoliceRecord(state.round, tuple(entered), tuple(left), tuple(acts))
    new = frozen_state(state, table, bag=tuple(bag), police=record)
    if not new.bag:
        return game_over(new, "bag")
    return new_round(new, dice)


# -- the end -------------------------------------------------------------------------------


def scores(state: State) -> tuple[Score, ...]:
    out = []
    for p in state.parties:
        active = p.corteo.militants
        twelfth = active >= NUMBERS.winning_length
        points = (NUMBERS.score_active * active + NUMBERS.score_isolated * p.isolated
                  + NUMBERS.score_arrested * p.arrested + (NUMBERS.score_twelfth if twelfth else 0))
        out.append(Score(p.seat, active, p.isolated, p.arrested, twelfth, len(p.captured), points))
    return tuple(out)


def game_over(state: State, reason: str) -> State:
    """Count the points; the most points win, ties broken by the most recruits."""
    table = scores(state)
    best = max((s.points, s.captured) for s in table)
    winners = tuple(s.seat for s in table if (s.points, s.captured) == best)
    if len(winners) == len(table) and len(table) > 1:
        result = Result("draw", (), reason, table)
    else:
        result = Result("win", winners, reason, table)
    return replace(state, stage="over", to_move=None, roll=None, result=result)
