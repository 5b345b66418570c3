"""The End Phase's fires (rulebook 10.i), Catastrophic Damage (10.iii) and defeat points (12.iii, the
brief's "12.iv"). Section numbers are the Italian rulebook's (shared/seeds/004_*.txt). Red (Marie Curie
Block) is the active player."""

from __future__ import annotations

from pbem.games.blockmania import damage as D
from pbem.games.blockmania import fire as F
from pbem.games.blockmania.state import DEAD, Note, PhaseLog
from tests.games.blockmania.positions import B, L, board, dice, kind, loc, used_up


def fires(b, name):
    return b.damage(L(b, name)).fires


def test_a_fire_grows_where_there_is_one_in_the_active_players_block():
    """10.i: one more Fire wherever there is at least one, in the active player's block only."""
    b = board(squares={"curie:D5": {"fires": 1}, "curie:F5": {"fires": 2}, "keaton:D5": {"fires": 1}})
    d = dice()
    F.add_fires(b, d)
    assert (fires(b, "curie:D5"), fires(b, "curie:F5"), fires(b, "keaton:D5")) == (2, 3, 1)


def test_a_fourth_fire_spreads_by_2d6_unless_onto_open_air_collapse_or_three_fires():
    """10.i: at most 3 Fires a square; a 4th spreads to the neighbour the 2d6 diagram gives, and is not
    placed on Open Air, a collapsed square or one with three Fires."""
    b = board(squares={"curie:D5": {"fires": 3}, "curie:C5": {"fires": 3}, "curie:G5": {"fires": 3},
                       "curie:G6": {"collapsed": True}})
    assert kind(b, "curie:D6") == "interior RS" and kind(b, "curie:B5") == "open OA"
    d = dice(2, 2, 3, 3, 4, 4)  # in map order: C5: 4 left to B5 (Open Air); D5: 6 up to D6; G5: 8 up to G6 (collapsed)
    F.add_fires(b, d)
    assert used_up(d)
    assert (fires(b, "curie:D5"), fires(b, "curie:D6"), fires(b, "curie:C5"), fires(b, "curie:B5")) == (3, 1, 3, 0)
    assert fires(b, "curie:G6") == 0


def test_fire_damage_automatic_system_or_structural_damage():
    """10.i: 1d6 per burning square: 1-2 the automatic system removes a Fire (if it works); otherwise
    the roll + the Fires >= 7 places Structural Damage, with its collapse roll (9.ii)."""
    b = board(squares={"curie:D5": {"fires": 2}, "curie:F5": {"fires": 2}, "curie:G5": {"fires": 2}})
    d = dice(1, 5, 1, 4)  # D5: out; F5: 5 + 2 = 7 damage, collapse roll 1 + 1 stands; G5: 4 + 2 = 6 burns
    F.fire_damage(b, d)
    assert used_up(d)
    assert fires(b, "curie:D5") == 1 and b.damage(L(b, "curie:F5")).damage == 1
    assert fires(b, "curie:G5") == 2 and b.damage(L(b, "curie:G5")).damage == 0
    b = board(squares={"curie:D5": {"fires": 2}})
    F.fire_damage(b, dice(2), automatic=lambda loc: False)
    assert fires(b, "curie:D5") == 2


def test_blockers_in_a_burning_square_die_on_seven():
    """10.i: for each square with Blockers and Fire, 1d6 + the Fires >= 7 eliminates them."""
    b = board(B("red-1", "mob", "curie:D5"), B("blue-1", "juves", "curie:D5"), B("red-2", "mob", "curie:F5"),
              squares={"curie:D5": {"fires": 2}, "curie:F5": {"fires": 1}})
    d = dice(5, 5)  # D5: 5 + 2 = 7 kills both; F5: 5 + 1 = 6 spares
    F.fire_casualties(b, d)
    assert used_up(d) and loc(b, "red-1") == DEAD and loc(b, "blue-1") == DEAD and loc(b, "red-2") == "curie:F5"


def test_catastrophic_collapse_5d6_against_the_collapses_of_the_block():
    """10.iii: a block with a Collapse placed this turn in a Window or Interior square rolls 5d6: at most
    its Collapse markers and it falls: everything removed, Open Air for lines of fire, transit
    collapsed, 200 defeat points; without a Collapse this turn there is no roll."""
    collapsed = {f"curie:{s}": {"collapsed": True} for s in ("D4", "E5", "F5", "G5")}
    b = board(B("red-1", "citi-def", "curie:D7"), B("blue-1", "juves", "curie:C5"), B("blue-2", "juves", "keaton:D5"),
              squares={**collapsed, "curie:E7": {"fires": 2}})
    assert kind(b, "curie:D5") == "interior RS"
    assert F.catastrophe(b, dice()) == []  # no Collapse this turn
    D.collapse(b, L(b, "curie:D5"))  # the fifth
    assert F.collapses_this_turn(b) == ["curie"]
    d = dice(1, 1, 1, 1, 1)
    assert F.catastrophe(b, d) == ["curie"] and used_up(d)
    assert "curie" in b.fallen and loc(b, "red-1") == DEAD and loc(b, "blue-1") == DEAD
    assert loc(b, "blue-2") == "keaton:D5"
    assert b.collapsed(L(b, "keaton:A6")) and b.damage(L(b, "keaton:A6")).transit == "fallen"  # shared Pedway
    assert b.ring.fire_range(L(b, "keaton:C5"), L(b, "curie:E5")) is None
    assert b.ring.fire_range(L(b, "keaton:C5"), L(b, "curie:E5"), fallen=b.fallen) == 7
    assert F.defeat_points(b) == {"red": 1 + 200, "blue": 1}


def test_a_collapse_earlier_in_the_turn_counts_and_a_high_roll_spares_the_block():
    """10.iii: the Collapse may have been placed in any phase of the turn (the log); 5d6 above the
    markers: the block stands."""
    note = Note("note-damage-collapse", (("square", "curie:D5"), ("block", "curie"), ("type", "interior")))
    b = board(squares={"curie:D5": {"collapsed": True}}, log=(PhaseLog(1, "red", "combat", (note,)),))
    d = dice(1, 1, 1, 1, 2)
    assert F.catastrophe(b, d) == [] and used_up(d) and not b.fallen


def test_defeat_points():
    """12.iii: 1 per own Blocker lost, 6 per Collapse, 1 per Structural Damage, 1 per square with Fire,
    4 per looted Bank or Armoury, 2 per looted Mall, 4 per Scrawl on a Window, 2 per Scrawl on a Civic
    square, by the block's owner."""
    b = board(B("red-1", "juves", DEAD), B("red-2", "juves", DEAD), B("blue-1", "juves", DEAD),
              B("blue-2", "juves", "curie:D5"),
              squares={"curie:D5": {"damage": 2, "fires": 3}, "curie:E5": {"collapsed": True},
                       "curie:G3": {"looted": True}, "curie:E4": {"looted": True}, "curie:D1": {"looted": True},
                       "curie:C5": {"scrawled": True}, "curie:F4": {"scrawled": True}, "curie:F5": {"scrawled": True},
                       "keaton:E4": {"looted": True}})
    assert [kind(b, s) for s in ("curie:G3", "curie:E4", "curie:D1", "curie:C5", "curie:F4", "curie:F5")] == \
        ["interior BK", "interior AR", "interior SM", "window RS", "interior CV", "interior RS"]
    assert kind(b, "keaton:E4") == "interior AR"
    assert F.defeat_points(b) == {"red": 2 + 2 + 1 + 6 + 4 + 4 + 2 + 4 + 2, "blue": 1 + 4}


def test_a_fallen_block_collapses_the_transit_of_its_own_map_only_and_returns_the_counters():
    """10.iii: "tutti gli indicatori e le pedine nel Block crollato sono rimossi" (the counters to their
    containers, 7.iii) and "tutti gli Square di Pedway, Sky Rail e Mega Way si considerano crollati",
    read as those of the fallen map: the bullets around it speak of "la mappa del Block crollato". The
    Pedway square on the neighbour's own map stands, and no Collapse marker is scored for any."""
    b = board(B("red-1", "citi-def", "curie:D7", "spit-gun"))
    assert [kind(b, s) for s in ("curie:I6", "keaton:A6", "keaton:B6", "keaton:B2", "keaton:B10")] == \
        ["open PW", "open PW", "open PW", "open MW", "open SR"]
    gun = b.blockers["red-1"].carried[0]
    F.fall(b, "curie")
    assert loc(b, "red-1") == DEAD and b.counters[gun].loc == "pool:armoury"
    assert b.damage(L(b, "curie:I6")).transit == "fallen" and b.damage(L(b, "keaton:A6")).transit == "fallen"
    for name in ("keaton:B6", "keaton:B2", "keaton:B10"):
        assert not b.collapsed(L(b, name)), name
    assert F.defeat_points(b) == {"red": 1 + 200, "blue": 0}


def test_own_side_losses_are_defeat_points_only_justice_is_not():
    """12.iii "le perdite che hanno subito durante la partita a causa degli altri giocatori: ogni Blocker
    eliminato vale 1 Punto Sconfitta. I Blocker che sono stati eliminati a causa delle carte Giustizia non
    si considerano" and 7.iii "Solo i Blocker eliminati dalle forze della giustizia … non vanno
    considerati": a Blocker lost to its own side (its owner's Missile Launcher, a fire or collapse in its
    own block) counts; one removed by Justice does not."""
    from dataclasses import replace

    from pbem.games.blockmania.state import JUSTICE
    b = board(B("red-1", "juves", "keaton:E5"), B("red-2", "juves", "curie:D4"), B("red-3", "juves", "curie:E7"),
              B("red-4", "juves", JUSTICE), squares={"curie:E7": {"fires": 3}}, lying={"charge": "demo-charge@keaton:E5"})
    b.counters["charge"] = replace(b.counters["charge"], armed_turn=1)
    D.explode_charges(b, dice(1, 6))  # red's own charge: the square stands (1 + 8 - 6), red-1 dies (6 + 4 - 2)
    D.collapse(b, L(b, "curie:D4"))  # a collapse in its own block
    F.fire_casualties(b, dice(6))  # 6 + 3 >= 7: the fire in its own block
    assert [loc(b, x) for x in ("red-1", "red-2", "red-3", "red-4")] == [DEAD, DEAD, DEAD, JUSTICE]
    assert F.defeat_points(b)["red"] == 3 + 6 + 1  # three losses, the Collapse, the square with Fire
