"""Combat (6.0-6.4): both sides total their factors and roll on the CRT; the results are
applied at the same time; morale checks; the visibility changes of the table.

Choices about the enemy's units belong to the side whose die gave the result (6.3: "a scelta
del giocatore"): the attacker names them in the ATTACK order (CHECK, ARREST); the defender's
come from its standing TARGETS; if neither says, `pick` applies the documented default.
"""

from __future__ import annotations

from pbem.core.dice import Dice
from pbem.games.seattle.board import Board, other
from pbem.games.seattle.orders import Attack
from pbem.games.seattle.state import AUTH, DEM, Combat, MoraleCheck, SideRoll
from pbem.games.seattle.tables import TABLES, modified_total


def side_total(board: Board, side: str, units: tuple[str, ...], area: str, munitions: tuple[str, ...],
               enemies: tuple[str, ...], attacking: bool = True, crowds_attacked: frozenset[str] = frozenset()
               ) -> tuple[tuple[tuple[str, int, int], ...], tuple[str, ...], int]:
    """6.2: (unit, factor, doublings) per unit, the halvings, and the modified total.

    Doublings per unit: special munitions (Authorities), Angry Feminists (Antagonists), Pointing
    Fingers (Authorities attacking - not attacked - Groups in an area that also holds Crowds, when
    no attack of the phase in that area, ``crowds_attacked``, takes on a Crowd), escalation
    Phase 3 (everyone).  Halvings of the total: a barricade in the area, night."""
    factors = []
    crowds_there = any(board.kind(u) == "crowd" for u in board.at(area, DEM))
    only_groups = (bool(enemies) and all(board.kind(u) == "group" for u in enemies)
                   and area not in crowds_attacked)
    for u in units:
        t = board.type(u)
        doublings = 0
        if u in munitions:
            doublings += 1
        if t.key == "antagonists" and board.in_force("angry-feminists"):
            doublings += 1
        if side == AUTH and attacking and board.in_force("pointing-fingers") and crowds_there and only_groups:
            doublings += 1
        if TABLES.escalation_phase(board.escalation).combat_multiplier == 2:
            doublings += 1
        factors.append((u, t.combat, doublings))
    halvings = []
    if area in board.barricades:
        halvings.append("barricade")
    if board.state.turn and TABLES.turn(board.state.turn).night:
        halvings.append("night")
    total = modified_total(((f, d) for _, f, d in factors), len(halvings))
    return tuple(factors), tuple(halvings), total


def pick(board: Board, chooser: str, result: str, candidates: list[str], named: str | None) -> str:
    """The enemy unit a result lets ``chooser`` pick (6.3): named in the order, else the first
    of the chooser's standing TARGETS present, else the default: for a morale check the unit
    likeliest to fail (lowest morale, then highest combat); for an arrest by the Authorities a
    Group before a Crowd, the strongest first; for an A by the Demonstrators the strongest."""
    if named in candidates:
        return named  # type: ignore[return-value]
    from pbem.games.seattle.orders import KINDS

    for target in board.state.standing(chooser).targets:
        for u in candidates:
            if u == target or board.type(u).code == target or KINDS.get(target) == board.kind(u):
                return u

    def key(u: str) -> tuple[int, ...]:
        t = board.type(u)
        if result == "MC":
            return (t.morale, -t.combat)
        return (t.kind != "group", -t.combat, t.morale)

    return sorted(candidates, key=lambda u: (*key(u), candidates.index(u)))[0]


def fight(board: Board, side: str, attack: Attack, dice: Dice, crowds_attacked: frozenset[str] = frozenset()
          ) -> Combat:
    """One combat declared by ``side`` (6.1), played and applied on ``board``; ``crowds_attacked``:
    the areas where an attack of the same phase takes on a Crowd (event 45-46)."""
    area = board.loc[attack.attackers[0]]
    enemy = other(side)
    defence_munitions: tuple[str, ...] = ()
    if (enemy == AUTH and board.state.standing_auth.munitions_in_defence
            and TABLES.escalation_phase(board.escalation).special_munitions and not board.in_force("lost-the-key")):
        defence_munitions = attack.defenders
    a_factors, a_halves, a_total = side_total(board, side, attack.attackers, area, attack.munitions, attack.defenders,
                                              crowds_attacked=crowds_attacked)
    d_factors, d_halves, d_total = side_total(board, enemy, attack.defenders, area, defence_munitions,
                                              attack.attackers, attacking=False)
    x_as_a = TABLES.escalation_phase(board.escalation).x_as_a
    a_roll = dice.roll(TABLES.die, f"combat in {area}: {side} attack")
    d_roll = dice.roll(TABLES.die, f"combat in {area}: {enemy} reaction")
    a_printed = TABLES.crt.result(a_total, a_roll)
    d_printed = TABLES.crt.result(d_total, d_roll)
    a_result = "A" if x_as_a and a_printed == "X" else a_printed
    d_result = "A" if x_as_a and d_printed == "X" else d_printed

    # Both results are read before either is applied (6.1: simultaneously).
    checks: list[tuple[str, str]] = []  # (unit, chooser)
    removed: list[str] = []  # permanently
    withdrawn: list[str] = []  # temporarily
    chosen: list[tuple[str, str]] = []
    for roller, result, victims, named_check, named_arrest in (
            (side, a_result, list(attack.defenders), attack.check, attack.arrest),
            (enemy, d_result, list(attack.attackers), None, None)):
        if result == "MC":
            u = pick(board, roller, "MC", victims, named_check)
            chosen.append(("MC", u))
            checks.append((u, roller))
        elif result == "A" and roller == AUTH:
            u = pick(board, roller, "A", victims, named_arrest)
            chosen.append(("A", u))
            removed.append(u)
            checks.extend((v, roller) for v in victims if v != u)
        elif result == "A":
            u = pick(board, roller, "A", victims, named_arrest)
            chosen.append(("A", u))
            withdrawn.append(u)
        elif result == "X" and roller == AUTH:
            removed.extend(victims)
        elif result == "X":
            withdrawn.extend(victims)

    morale: list[MoraleCheck] = []
    bonus = next(e.morale_bonus for e in TABLES.events if e.key == "solidarity-forever")
    for u, _ in checks:
        t = board.type(u)
        value = t.morale + (bonus if t.side == DEM and board.in_force("solidarity-forever") else 0)
        roll = dice.roll(TABLES.die, f"morale check of {u}")
        passed = roll <= value
        morale.append(MoraleCheck(u, roll, value, passed))
        if not passed:
            withdrawn.append(u)
            if t.side == AUTH:
                board.morale_loss = True  # 7.3: the Authorities may go to Phase 2

    for u in removed:
        board.remove(u)
    for u in withdrawn:
        board.withdraw(u)
    board.engaged.update(attack.attackers)
    board.engaged.update(attack.defenders)

    # The visibility table, combat phase rows.
    munitions_used = len(attack.munitions) + len(defence_munitions)
    groups = sum(1 for u in removed if board.kind(u) == "group")
    crowds = sum(1 for u in removed if board.kind(u) == "crowd")
    police_out = sum(1 for u in withdrawn if board.side(u) == AUTH)
    if groups:
        if board.state.standing_auth.visibility == "demonstrators":
            board.add_vis(DEM, -2 * groups, "group-removed", groups)
        else:
            board.add_vis(AUTH, 2 * groups, "group-removed", groups)
    for _ in range(crowds):
        board.add_vis(AUTH, -1, "crowd-removed")
        board.add_vis(DEM, -dice.roll(TABLES.die, "a Crowd removed: 1d6 off the Demonstrators' index"),
                      "crowd-removed")
    if munitions_used:
        board.add_vis(AUTH, -munitions_used, "special-munitions", munitions_used)
    if police_out:
        board.add_vis(DEM, police_out, "authority-unit-removed", police_out)

    combat = Combat(
        area,
        SideRoll(side, attack.attackers, a_factors, a_halves, a_total, a_roll, a_result, a_printed, attack.munitions),
        SideRoll(enemy, attack.defenders, d_factors, d_halves, d_total, d_roll, d_result, d_printed,
                 defence_munitions),
        tuple(morale), tuple(removed), tuple(withdrawn), tuple(chosen))
    board.combats.append(combat)
    return combat


def clear_barricades(board: Board) -> None:
    """7.2: at the end of a combat phase a barricade goes where no Demonstrator unit is left."""
    for area in sorted(board.barricades):
        if not board.at(area, DEM):
            board.barricades.discard(area)
            board.notes.append(("note-barricade-gone", area))
