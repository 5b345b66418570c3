"""Demolition (rulebook 9.i-9.vii) and the Demo Charge. Section numbers are the Italian rulebook's
(shared/seeds/004_*.txt). Red (Marie Curie Block) is active and attacks blue's Buster Keaton Block.
Missile Defence Laser 10/+8 HW (square or Blocker), Missile Launcher 6/+7 HW (square and Blockers),
Demo Charge +8 against squares (3 markers), +4 against Blockers (roster.toml)."""

from __future__ import annotations

from dataclasses import replace

from pbem.games.blockmania import combat as C
from pbem.games.blockmania import damage as D
from pbem.games.blockmania.roster import ROSTER
from pbem.games.blockmania.state import DEAD
from tests.games.blockmania.positions import B, L, board, dice, keys, kind, loc, used_up

MDL = ROSTER.counter("missile-defence-laser")


def err(m):
    return None if m is None else m.key


def carried(b, bid, type_):
    return next(c for c in b.blockers[bid].carried if b.counters[c].type == type_)


def markers(b):
    return [dict(n.args)["square"] for n in b.notes if n.key == "note-damage-marker"]


def test_a_hit_on_a_square_is_one_structural_damage_with_its_collapse_roll():
    """9.i, 9.ii: only by shooting: 1d6 + damage - the square's Strength (no +1 for Civic or Open Air)
    >= 6 places a Structural Damage marker, then 1d6 + markers >= 6 collapses the square."""
    b = board(B("red-1", "citi-def", "keaton:D5", "missile-defence-laser", "spit-gun", set_up=True))
    assert kind(b, "keaton:D5") == "interior RS" and kind(b, "keaton:E5") == "interior RS"
    laser, gun = carried(b, "red-1", "missile-defence-laser"), carried(b, "red-1", "spit-gun")
    assert err(C.check_shoot(b, "red-1", gun, square=L(b, "keaton:E5"))) == "err-damage-weapon"
    assert C.check_shoot(b, "red-1", laser, square=L(b, "keaton:E5")) is None
    d = dice(4, 1)  # 4 + 8 - 6 = 6: hit; collapse roll 1 + 1 = 2: stands
    C.shoot(b, "red-1", laser, d, square=L(b, "keaton:E5"))
    assert used_up(d) and b.damage(L(b, "keaton:E5")).damage == 1 and not b.collapsed(L(b, "keaton:E5"))


def test_armoury_squares_have_strength_8_and_own_block_squares_are_not_targets():
    """9.i: an Armoury square has Strength 8 (a Missile Launcher +7 never damages it); a player does not
    choose a square of his own block as a target (QR: only the Futsie attacks its own block)."""
    b = board(B("red-1", "citi-def", "keaton:D4", "missile-launcher", set_up=True),
              B("red-2", "citi-def", "curie:D5", "missile-defence-laser", set_up=True))
    assert kind(b, "keaton:E4") == "interior AR" and kind(b, "keaton:D4") == "interior RS"
    assert D.square_strength(b, L(b, "keaton:E4")) == 8
    d = dice(6)  # 6 + 7 - 8 = 5: no effect
    C.shoot(b, "red-1", carried(b, "red-1", "missile-launcher"), d, square=L(b, "keaton:E4"))
    assert used_up(d) and b.damage(L(b, "keaton:E4")).damage == 0
    assert err(C.check_shoot(b, "red-2", carried(b, "red-2", "missile-defence-laser"),
                             square=L(b, "curie:E5"))) == "err-combat-own-block"


def test_several_markers_mean_several_collapse_rolls():
    """9.ii's example: a Demo Charge on an undamaged square places 3 Structural Damage, rolling after
    each: collapse on 5+, then 4+, then 3+. QR: an armed charge explodes in the next Combat Phase."""
    b = board(lying={"charge": "demo-charge@keaton:E5"})
    b.counters["charge"] = replace(b.counters["charge"], armed_turn=1)
    assert D.armed_charges(b) == ["charge"]
    d = dice(4, 1, 2, 3, 1, 1, 1)  # hit 4 + 8 - 6 = 6; 1+1, 2+2 stand, 3+3 collapses; the cascade 3 rolls
    D.explode_charges(b, d)
    assert used_up(d) and b.collapsed(L(b, "keaton:E5"))
    assert markers(b) == ["keaton:E5"] * 3 + ["keaton:E6", "keaton:F6", "keaton:D6"]
    assert b.counters["charge"].loc == D.REMOVED


def test_a_collapse_wipes_the_square_and_cascades_upwards_vertical_right_left():
    """9.iii: everything in the collapsed square is removed (Blockers killed, counters back to their
    containers as 7.iii says, Fire, Scrawl, Structural Damage); Structural Damage goes on the square above, then above right, then above left,
    each rolled at once; collapses so caused put theirs on the level above in turn."""
    b = board(B("red-1", "citi-def", "keaton:D5", "missile-defence-laser", set_up=True),
              B("blue-1", "juves", "keaton:E5", "spit-gun"),
              squares={"keaton:E5": {"damage": 4, "fires": 2, "scrawled": True}, "keaton:E6": {"damage": 4}},
              lying={"saw": "power-saw@keaton:E5"})
    assert [kind(b, s) for s in ("keaton:E6", "keaton:F6", "keaton:D6", "keaton:E7", "keaton:F7", "keaton:D7")] \
        == ["interior RS", "interior CV", "interior RS", "interior CV", "interior RS", "window RS"]
    gun = carried(b, "blue-1", "spit-gun")
    # hit 4; E5's fifth marker 1 + 5 = 6 collapses; E6 1 + 5 collapses; F6, D6 stand; E7, F7, D7 stand
    d = dice(4, 1, 1, 1, 1, 1, 1, 1)
    C.shoot(b, "red-1", carried(b, "red-1", "missile-defence-laser"), d, square=L(b, "keaton:E5"))
    assert used_up(d)
    e5 = b.damage(L(b, "keaton:E5"))
    assert e5.collapsed and (e5.damage, e5.fires, e5.scrawled) == (0, 0, False)
    assert loc(b, "blue-1") == DEAD and b.counters[gun].loc == "pool:armoury" and b.counters["saw"].loc == "pool:hardware"
    assert markers(b) == ["keaton:E5", "keaton:E6", "keaton:F6", "keaton:D6", "keaton:E7", "keaton:F7", "keaton:D7"]
    assert b.collapsed(L(b, "keaton:E6")) and b.damage(L(b, "keaton:F6")).damage == 1


def test_collapsed_squares_take_no_more_markers_and_special_locations_are_destroyed():
    """9.iii, 9.iv: a collapsed square takes no Structural Damage (nor Fire, nor Scrawl); a special
    location that collapsed is destroyed (a Bank can no longer be looted)."""
    b = board(B("red-1", "citi-def", "curie:G3"), squares={"curie:G3": {"collapsed": True}})
    assert kind(b, "curie:G3") == "interior BK"
    assert err(D.check_square_target(b, L(b, "curie:G3"), MDL)) == "err-damage-collapsed"
    d = dice()
    assert D.add_structural_damage(b, L(b, "curie:G3"), 2, d) == [] and b.damage(L(b, "curie:G3")).damage == 0
    assert err(C.check_loot(b, "red-1")) == "err-loot-square"
    assert err(C.check_set_fire(b, "red-1")) == "err-fire-square"


def test_the_sky_rail_falls_to_one_hit_of_a_missile_defence_laser():
    """9.v: only a Missile Defence Laser damages the Sky Rail, Strength 4; one hit collapses it."""
    b = board(B("red-1", "citi-def", "keaton:G10", "missile-defence-laser", "missile-launcher", set_up=True))
    assert kind(b, "keaton:I10") == "open SR" and kind(b, "keaton:H10") == "open SR"
    assert err(C.check_shoot(b, "red-1", carried(b, "red-1", "missile-launcher"), square=L(b, "keaton:I10"))) \
        == "err-damage-only"
    d = dice(2)  # 2 + 8 - 4 = 6
    C.shoot(b, "red-1", carried(b, "red-1", "missile-defence-laser"), d, square=L(b, "keaton:I10"))
    sq = b.damage(L(b, "keaton:I10"))
    assert used_up(d) and sq.collapsed and sq.transit == "collapsed"


def test_a_pedway_is_stopped_then_collapsed_then_severed():
    """9.vi: Strength 6; the first hit stops the Pedway and places Structural Damage without a collapse
    roll; the second collapses it; the third severs it and its occupants die."""
    b = board(B("red-1", "superhero", "keaton:I6"))
    assert kind(b, "keaton:I6") == "open PW"
    where = L(b, "keaton:I6")
    d = dice(4)
    assert D.hit_square(b, where, MDL, d, "test") and used_up(d)
    assert (b.damage(where).transit, b.damage(where).damage, b.collapsed(where)) == ("stopped", 1, False)
    D.hit_square(b, where, MDL, dice(4), "test")
    assert b.damage(where).transit == "collapsed" and b.collapsed(where) and loc(b, "red-1") == "keaton:I6"
    assert D.check_square_target(b, where, MDL) is None  # a third hit is still possible
    D.hit_square(b, where, MDL, dice(4), "test")
    assert b.damage(where).transit == "severed" and loc(b, "red-1") == DEAD
    assert err(D.check_square_target(b, where, MDL)) == "err-damage-collapsed"


def test_the_mega_way_is_damaged_then_collapses():
    """9.vii: Strength 6; the first hit places Structural Damage without a collapse roll, the second
    collapses the Mega Way square."""
    b = board()
    where = L(b, "keaton:I2")
    assert kind(b, "keaton:I2") == "open MW"
    d = dice(5)
    D.hit_square(b, where, MDL, d, "test")
    assert used_up(d) and b.damage(where).damage == 1 and not b.collapsed(where)
    D.hit_square(b, where, MDL, dice(5), "test")
    assert b.collapsed(where) and b.damage(where).transit == "collapsed"
    assert "note-damage-collapse" in keys(b)


def test_a_demo_charge_also_strikes_the_blockers_in_its_square():
    """9.i, QR: a Demo Charge hits the square and the Blockers in it (+4 against Blockers); an
    unarmed charge does not explode."""
    b = board(B("blue-1", "juves", "keaton:D5"), lying={"charge": "demo-charge@keaton:D5",
                                                         "idle": "demo-charge@keaton:F5"})
    b.counters["charge"] = replace(b.counters["charge"], armed_turn=1)
    d = dice(1, 4)  # square 1 + 8 - 6 = 3: no effect; Juves 4 + 4 - 2 = 6: eliminated
    D.explode_charges(b, d)
    assert used_up(d) and loc(b, "blue-1") == DEAD
    assert b.damage(L(b, "keaton:D5")).damage == 0
    assert b.counters["idle"].loc == "keaton:F5"


def test_a_collapse_sends_the_counters_back_to_their_containers():
    """9.iii "tutto ciò che esso contiene viene rimosso dal gioco, inclusi i Blocker, le pedine Armoury e
    Hardware" and 7.iii "I Blocker possono essere eliminati a seguito di: … crollo degli Square o dei
    Block … Quando un Blocker viene eliminato per qualsiasi motivo, … riponendo nei relativi contenitori
    eventuali pedine Armoury o Hardware": the counters leave the map for their pools (at the bottom),
    not out of the game, so the pools do not shrink; an armed Demo Charge lying there goes back unarmed.
    The Blocker is a loss (DEAD) all the same."""
    b = board(B("blue-1", "juves", "keaton:E5", "spit-gun", "power-saw"), pool=("flamer",),
              lying={"charge": "demo-charge@keaton:E5"})
    b.counters["charge"] = replace(b.counters["charge"], armed_turn=1)
    gun, saw = carried(b, "blue-1", "spit-gun"), carried(b, "blue-1", "power-saw")
    D.collapse(b, L(b, "keaton:E5"))
    assert loc(b, "blue-1") == DEAD
    assert [b.counters[c].loc for c in (gun, saw, "charge")] == ["pool:armoury", "pool:hardware", "pool:armoury"]
    assert b.counters["charge"].armed_turn is None and D.armed_charges(b) == []
    armoury = [c for c, x in b.counters.items() if x.loc == "pool:armoury"]
    assert armoury[0] == "flamer-pool-0"  # the pool's order is kept: those put back are drawn last
    assert not [c for c in b.counters.values() if c.loc == D.REMOVED]


def test_a_collapse_takes_every_marker_the_train_and_the_judges_too():
    """9.iii: "tutto ciò che esso contiene … inclusi … i treni della Sky Rail, gli indicatori Scrawl, Fire
    e Structural Damage": the list gives examples, so a Looted marker and a Judges marker go as well;
    a collapsed station keeps no train (6.vi: nobody rides from a collapsed station anyway)."""
    b = board(squares={"curie:E10": {"transit": "train", "damage": 2, "scrawled": True, "looted": True}},
              judges=("curie:E10",))
    assert kind(b, "curie:E10") == "window SS"
    D.collapse(b, L(b, "curie:E10"))
    e10 = b.damage(L(b, "curie:E10"))
    assert e10.collapsed and (e10.transit, e10.damage, e10.scrawled, e10.looted) == ("", 0, False, False)
    assert "curie:E10" not in b.judges


def test_a_missile_launcher_at_a_blocker_hits_every_blocker_in_the_square():
    """9.i: "Il Missile Launcher e le Demo Charge invece colpiscono contemporaneamente gli Square ed i
    Blocker al loro interno": aimed at one Blocker, it rolls against the square, then against each
    Blocker there (here a Superhero sharing its friend's square), the one aimed at first; the Missile
    Defence Laser hits "il settore stesso o il Blocker al suo interno, ma non entrambi"."""
    b = board(B("red-1", "citi-def", "keaton:C5", "missile-launcher", set_up=True),
              B("blue-1", "juves", "keaton:D5"), B("blue-2", "superhero", "keaton:D5"))
    assert kind(b, "keaton:C5") == "window RS" and kind(b, "keaton:D5") == "interior RS"
    launcher = carried(b, "red-1", "missile-launcher")
    assert C.check_shoot(b, "red-1", launcher, target="blue-2") is None
    d = dice(1, 1, 6)  # the square 1 + 7 - 6: miss; blue-2 1 + 7 - 4: miss; blue-1 6 + 7 - 2: killed
    assert C.shoot(b, "red-1", launcher, d, target="blue-2") == ["blue-1"] and used_up(d)
    shots = [dict(n.args)["target"] for n in b.notes if n.key == "note-combat-shot"]
    assert shots == ["blue-2", "blue-1"]
    b = board(B("red-1", "citi-def", "keaton:C5", "missile-defence-laser", set_up=True),
              B("blue-1", "juves", "keaton:D5"), B("blue-2", "superhero", "keaton:D5"))
    d = dice(1)
    C.shoot(b, "red-1", carried(b, "red-1", "missile-defence-laser"), d, target="blue-2")
    assert used_up(d)  # one roll, at blue-2 only
