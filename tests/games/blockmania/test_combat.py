"""Defensive Fire (rulebook 7) and the Combat Phase (8.i-8.x). Section numbers are the Italian
rulebook's (shared/seeds/004_*.txt). Red (Marie Curie Block) is the active player, blue (Buster Keaton)
the other. Citi-Def Strength 3, Juves 2, Spugs 1, Fatty 3 (+2 in close combat), Mob 4; Spit Gun 4/+3,
Nail Gun 2/+2, Power Saw 0/+3, Heavy Laser 8/+5 HW (roster.toml)."""

from __future__ import annotations

from pbem.games.blockmania import combat as C
from pbem.games.blockmania.state import DEAD, Standing
from tests.games.blockmania.positions import B, L, board, dice, keys, kind, loc, used_up


def err(m):
    return None if m is None else m.key


def carried(b, bid, type_):
    return next(c for c in b.blockers[bid].carried if b.counters[c].type == type_)


# -- 7 Defensive Fire --------------------------------------------------------------------------------

def test_defensive_fire_kills_on_six_and_turns_the_shooter_face_down():
    """7.i, 7.ii: another player's Blocker one square away shoots: 1d6 + damage - Strength >= 6 kills;
    the shooter is face down whatever the result."""
    b = board(B("blue-1", "citi-def", "curie:D5", "spit-gun"), B("red-1", "juves", "curie:D4"))
    assert kind(b, "curie:D5") == "interior RS" and kind(b, "curie:D4") == "interior RS"
    gun = carried(b, "blue-1", "spit-gun")
    assert C.check_defensive_fire(b, "blue-1", "red-1", gun) is None
    d = dice(4)  # 4 + 3 - 2 = 5: no effect
    assert C.defensive_fire(b, "blue-1", "red-1", gun, d) == [] and used_up(d)
    assert loc(b, "red-1") == "curie:D4" and b.blockers["blue-1"].face_down
    assert err(C.check_defensive_fire(b, "blue-1", "red-1", gun)) == "err-combat-face-down"
    b.set_blocker("blue-1", face_down=False)
    assert C.defensive_fire(b, "blue-1", "red-1", gun, dice(5)) == ["red-1"]  # 5 + 3 - 2 = 6
    assert loc(b, "red-1") == DEAD


def test_defensive_fire_gets_plus_one_against_civic_and_open_air():
    """7.ii: +1 if the target is in a Civic or Open Air square."""
    b = board(B("blue-1", "citi-def", "curie:D4", "spit-gun"), B("red-1", "juves", "curie:D3"))
    assert kind(b, "curie:D3") == "interior CV"
    gun = carried(b, "blue-1", "spit-gun")
    assert C.defensive_fire(b, "blue-1", "red-1", gun, dice(4)) == ["red-1"]  # 4 + 3 + 1 - 2 = 6


def test_defensive_fire_is_one_square_away_diagonal_only_in_the_open():
    """7.i: orthogonally one square away; diagonally only Open Air-Open Air or Open Air-Window; only at
    the active player's Blockers; only by the other players'."""
    b = board(B("blue-1", "citi-def", "curie:D5", "spit-gun"), B("red-1", "juves", "curie:E4"),
              B("blue-2", "citi-def", "curie:B5", "spit-gun"), B("red-2", "juves", "curie:C4"),
              B("blue-3", "citi-def", "curie:D7", "spit-gun"), B("red-3", "citi-def", "curie:C5", "spit-gun"))
    assert kind(b, "curie:E4") == "interior AR" and kind(b, "curie:B5") == "open OA"
    assert kind(b, "curie:C4") == "window RS"
    assert err(C.check_defensive_fire(b, "blue-1", "red-1", carried(b, "blue-1", "spit-gun"))) \
        == "err-defensive-not-adjacent"
    assert C.check_defensive_fire(b, "blue-2", "red-2", carried(b, "blue-2", "spit-gun")) is None
    assert err(C.check_defensive_fire(b, "blue-3", "red-3", carried(b, "blue-3", "spit-gun"))) \
        == "err-defensive-not-adjacent"  # two squares away
    assert err(C.check_defensive_fire(b, "red-3", "blue-2", carried(b, "red-3", "spit-gun"))) \
        == "err-defensive-own-turn"


def test_defensive_fire_policies_choose_nearest_strongest_or_never():
    """7 over email (Standing.defensive_fire): "nearest" an orthogonal target before a diagonal one,
    "strongest" the highest Strength, "never" holds fire; the phase follows the standing instruction."""
    b = board(B("blue-1", "citi-def", "curie:B5", "spit-gun"), B("red-1", "juves", "curie:C5"),
              B("red-2", "mob", "curie:C4"))
    assert kind(b, "curie:C5") == "window RS" and kind(b, "curie:C4") == "window RS"
    gun = carried(b, "blue-1", "spit-gun")
    assert C.choose_defensive_fire(b, "blue-1", "nearest") == ("red-1", gun)
    assert C.choose_defensive_fire(b, "blue-1", "strongest") == ("red-2", gun)
    assert C.choose_defensive_fire(b, "blue-1", "never") is None
    b = board(B("blue-1", "citi-def", "curie:B5", "spit-gun"), B("red-1", "juves", "curie:C5"),
              B("red-2", "mob", "curie:C4"), standing=(Standing(), Standing(defensive_fire="strongest")))
    d = dice(6)  # 6 + 3 - 4 = 5: the Mob survives
    C.defensive_fire_phase(b, d)
    assert used_up(d) and loc(b, "red-2") == "curie:C4" and b.blockers["blue-1"].face_down
    b = board(B("blue-1", "citi-def", "curie:B5", "spit-gun"), B("red-1", "juves", "curie:C5"),
              standing=(Standing(), Standing(defensive_fire="never")))
    C.defensive_fire_phase(b, dice())
    assert not b.blockers["blue-1"].face_down


# -- 8.iii-8.v Shooting ------------------------------------------------------------------------------

def test_lines_of_fire_through_open_air_to_but_not_through_window_and_interior():
    """8.iv: to or through Open Air, to but not through Window or Interior; to an Interior square only
    orthogonally."""
    b = board(B("red-1", "citi-def", "curie:C5", "spit-gun"), B("blue-1", "juves", "curie:D5"),
              B("blue-2", "juves", "curie:E5"), B("blue-3", "juves", "curie:D4"), B("blue-4", "juves", "curie:A5"))
    assert [kind(b, s) for s in ("curie:C5", "curie:D5", "curie:E5", "curie:D4", "curie:B5")] == \
        ["window RS", "interior RS", "interior RS", "interior RS", "open OA"]
    gun = carried(b, "red-1", "spit-gun")
    assert C.check_shoot(b, "red-1", gun, target="blue-1") is None
    assert err(C.check_shoot(b, "red-1", gun, target="blue-2")) == "err-combat-no-line"  # through D5
    assert err(C.check_shoot(b, "red-1", gun, target="blue-3")) == "err-combat-no-line"  # diagonal Interior
    assert C.check_shoot(b, "red-1", gun, target="blue-4") is None  # through B5


def test_range_counts_the_targets_square_not_the_shooters():
    """8.iii: the range counts the target's square, not the shooter's; across the ring's join (1.ii)."""
    b = board(B("red-1", "citi-def", "curie:C5", "nail-gun", "spit-gun"), B("blue-1", "juves", "keaton:I5"))
    assert kind(b, "keaton:I5") == "open OA" and kind(b, "curie:A5") == "open OA"
    assert b.ring.fire_range(L(b, "curie:C5"), L(b, "keaton:I5")) == 3
    assert err(C.check_shoot(b, "red-1", carried(b, "red-1", "nail-gun"), target="blue-1")) == "err-combat-no-line"
    gun = carried(b, "red-1", "spit-gun")
    assert C.check_shoot(b, "red-1", gun, target="blue-1") is None
    d = dice(4)  # 4 + 3 + 1 (Open Air) - 2 = 6
    assert C.shoot(b, "red-1", gun, d, target="blue-1") == ["blue-1"] and used_up(d)


def test_one_attack_per_blocker_then_face_down():
    """8.i, 8.v: one attack with one weapon, then the Blocker is face down and attacks no more; a
    heavy weapon must be set up (6.xi); no shooting from a square shared with an enemy (8.v)."""
    b = board(B("red-1", "citi-def", "curie:C5", "spit-gun", "heavy-laser"), B("blue-1", "citi-def", "curie:D5"),
              B("red-2", "juves", "curie:G5", "spit-gun"), B("blue-2", "juves", "curie:G5"))
    gun, laser = carried(b, "red-1", "spit-gun"), carried(b, "red-1", "heavy-laser")
    assert err(C.check_shoot(b, "red-1", laser, target="blue-1")) == "err-combat-not-set-up"
    assert err(C.check_shoot(b, "red-2", carried(b, "red-2", "spit-gun"), target="blue-1")) == "err-combat-engaged"
    assert C.shoot(b, "red-1", gun, dice(1), target="blue-1") == []
    assert b.blockers["red-1"].face_down
    b.set_blocker("red-1", set_up=True)
    assert err(C.check_shoot(b, "red-1", laser, target="blue-1")) == "err-combat-face-down"


def test_fire_into_a_locked_square_hits_both():
    """8.vi: a shot at a square where Blockers are locked in close combat hits both, a roll each."""
    b = board(B("red-1", "citi-def", "curie:C5", "spit-gun"), B("blue-1", "juves", "curie:D5", locked=True),
              B("red-2", "spugs", "curie:D5", locked=True))
    d = dice(2, 4)  # blue-1: 2 + 3 - 2 = 3; red-2: 4 + 3 - 1 = 6
    assert C.shoot(b, "red-1", carried(b, "red-1", "spit-gun"), d, target="blue-1") == ["red-2"]
    assert used_up(d) and loc(b, "red-2") == DEAD
    assert not b.blockers["blue-1"].locked  # its opponent is gone (8.vi)


# -- 8.vi Close combat -------------------------------------------------------------------------------

def test_close_combat_is_mandatory_in_a_shared_square_and_after_shooting():
    """8.ii, 8.vi: sharing a square forces a close combat, fought even face down, after the shooting and
    before looting; the lower total dies."""
    b = board(B("red-1", "citi-def", "curie:G3", face_down=True), B("blue-1", "juves", "curie:G3"),
              B("red-2", "citi-def", "curie:C5", "spit-gun"), B("blue-2", "juves", "curie:D5"))
    assert kind(b, "curie:G3") == "interior BK"
    assert C.pending_close_combats(b) == [("red-1", "blue-1")]
    assert err(C.check_loot(b, "red-1")) == "err-combat-face-down"
    b.set_blocker("red-1", face_down=False)
    assert err(C.check_loot(b, "red-1")) == "err-combat-close-pending"
    assert C.check_shoot(b, "red-2", carried(b, "red-2", "spit-gun"), target="blue-2") is None
    b.set_blocker("red-1", face_down=True)
    assert C.check_close_combat(b, "red-1", "blue-1") is None
    d = dice(3, 3)  # red 3 + 3 = 6, blue 3 + 2 = 5
    assert C.close_combat(b, "red-1", "blue-1", d) == "red-1" and used_up(d)
    assert loc(b, "blue-1") == DEAD and C.pending_close_combats(b) == []


def test_close_combat_adds_non_heavy_weapons_and_the_fatty_bonus_and_ties_lock():
    """8.vi: 1d6 + Strength + every weapon carried except heavy ones (+ the Fatty's bonus); a tie locks
    both; only the active player's Blocker turns face down."""
    b = board(B("red-1", "fatty", "curie:F7", "power-saw", "heavy-laser"), B("blue-1", "mob", "curie:F7", "nail-gun"))
    d = dice(2, 2)  # red 2 + 3 + 2 + 3 = 10, blue 2 + 4 + 2 = 8
    assert C.close_combat(b, "red-1", "blue-1", d) == "red-1"
    b = board(B("red-1", "fatty", "curie:F7", "power-saw", "heavy-laser"), B("blue-1", "mob", "curie:F7", "nail-gun"))
    assert C.close_combat(b, "red-1", "blue-1", dice(1, 3)) is None  # 9 against 9
    assert b.blockers["red-1"].locked and b.blockers["blue-1"].locked
    assert b.blockers["red-1"].face_down and not b.blockers["blue-1"].face_down
    assert err(C.check_close_combat(b, "red-1", "blue-1")) == "err-combat-fought"


def test_a_charge_from_an_orthogonally_adjacent_square():
    """8.vi: the active player may charge an enemy orthogonally adjacent, never diagonally, moving in
    for free; never into a square where Blockers are locked."""
    b = board(B("red-1", "mob", "curie:E5"), B("blue-1", "juves", "curie:F5"), B("blue-2", "juves", "curie:F4"),
              B("red-2", "mob", "curie:D7"), B("blue-3", "juves", "curie:E7", locked=True),
              B("red-3", "spugs", "curie:E7", locked=True))
    assert kind(b, "curie:F5") == "interior RS" and kind(b, "curie:F4") == "interior CV"
    assert err(C.check_close_combat(b, "red-1", "blue-2")) == "err-combat-not-adjacent"
    assert err(C.check_close_combat(b, "red-2", "blue-3")) == "err-combat-locked-square"
    assert C.check_close_combat(b, "red-1", "blue-1") is None
    d = dice(1, 6)  # red 1 + 4 = 5, blue 6 + 2 = 8
    assert C.close_combat(b, "red-1", "blue-1", d) == "blue-1"
    assert loc(b, "red-1") == DEAD


def test_the_combat_phase_goes_in_strict_order():
    """8.ii: shooting, close combat, looting, scrawling, fire-setting, fire-fighting; once a step is
    begun the earlier ones are closed."""
    b = board(B("red-1", "mob", "curie:E5"), B("blue-1", "spugs", "curie:F5"),
              B("red-2", "citi-def", "curie:C5", "spit-gun"), B("red-3", "citi-def", "curie:G3"))
    C.close_combat(b, "red-1", "blue-1", dice(6, 1))
    assert err(C.check_shoot(b, "red-2", carried(b, "red-2", "spit-gun"), target="red-1")) == "err-combat-order"
    C.loot(b, "red-3", dice(1))
    assert err(C.check_set_fire(b, "red-2")) is None
    C.set_fire(b, "red-2", dice(1))
    assert err(C.check_loot(b, "red-3")) == "err-combat-face-down"
    assert err(C.check_scrawl(b, "red-1")) == "err-combat-face-down"
    assert C.current_step(b) == C.FIRE_SETTING
    b.set_blocker("red-3", face_down=False)
    assert err(C.check_loot(b, "red-3")) == "err-combat-order"


# -- 8.vii Looting -----------------------------------------------------------------------------------

def test_looting_a_bank_once():
    """8.vii: 1d6 + Strength >= 6 in a Bank, Armoury or Mall puts a Looted marker; once per square."""
    b = board(B("red-1", "citi-def", "curie:G3"), B("red-2", "citi-def", "curie:G3"), B("red-3", "citi-def", "curie:D5"))
    assert kind(b, "curie:G3") == "interior BK"
    assert err(C.check_loot(b, "red-3")) == "err-loot-square"
    assert C.loot(b, "red-1", dice(2)) is False and b.blockers["red-1"].face_down
    assert C.loot(b, "red-2", dice(3)) is True and b.damage(L(b, "curie:G3")).looted
    b.set_blocker("red-2", face_down=False)
    assert err(C.check_loot(b, "red-2")) == "err-loot-done"


def test_looting_an_armoury_draws_three_counters_and_the_surplus_goes_back_to_the_pool():
    """8.vii: a looted Armoury gives 3 Armoury counters ("può pescare dal rispettivo contenitore 3
    pedine"); 6.x: one that draws more than its Strength "deve immediatamente scartare quelle in
    eccesso, ma può scegliere quali riporre nei contenitori": the surplus goes back to the pool (at the
    bottom, drawn last), never onto the square, where no rule lets anyone pick it up. Unnamed, the
    last drawn go back."""
    b = board(B("red-1", "citi-def", "curie:E4", "nail-gun"), pool=("spit-gun", "flamer", "heavy-laser", "spit-gun"))
    assert kind(b, "curie:E4") == "interior AR"
    assert C.loot(b, "red-1", dice(3))
    got = [b.counters[c].type for c in b.blockers["red-1"].carried]
    assert got == ["nail-gun", "spit-gun", "flamer"]
    assert b.counters["heavy-laser-pool-2"].loc == "pool:armoury"
    assert not [c for c in b.counters.values() if c.loc == "curie:E4"]
    pool = [cid for cid, c in b.counters.items() if c.loc == "pool:armoury"]
    assert pool == ["spit-gun-pool-3", "heavy-laser-pool-2"]  # put back under the one left
    assert "note-combat-put-back" in keys(b)


def test_the_looter_chooses_what_goes_back():
    """6.x: "può scegliere quali riporre nei contenitori": LOOT … DISCARD names counters it carries to
    put back first (the ones drawn are unknown when the order is written); only the surplus goes, and a
    heavy weapon set up and put back leaves the Blocker with nothing set up (6.xi)."""
    b = board(B("red-1", "citi-def", "curie:E4", "nail-gun", "heavy-laser", set_up=True),
              pool=("spit-gun", "flamer", "missile-launcher"))
    laser, nail = carried(b, "red-1", "heavy-laser"), carried(b, "red-1", "nail-gun")
    assert C.loot(b, "red-1", dice(3), discard=(laser, nail, "no-such-counter"))
    got = sorted(b.counters[c].type for c in b.blockers["red-1"].carried)
    assert got == ["flamer", "missile-launcher", "spit-gun"]  # 2 carried + 3 drawn - Strength 3 = 2 back
    assert b.counters[laser].loc == "pool:armoury" and b.counters[nail].loc == "pool:hardware"
    assert not b.blockers["red-1"].set_up
    # one surplus only: the first named goes, the second stays
    b = board(B("red-1", "citi-def", "curie:E4", "nail-gun"), pool=("spit-gun", "flamer", "missile-launcher"))
    nail = carried(b, "red-1", "nail-gun")
    C.loot(b, "red-1", dice(3), discard=(nail,))
    assert b.counters[nail].loc == "pool:hardware" and len(b.blockers["red-1"].carried) == 3


def test_loot_discard_order_syntax_and_its_check():
    """6.x by mail: ``LOOT red-1 DISCARD nail-gun-1`` (``SACCHEGGIA … SCARTA``) names what goes back; a
    counter the looter does not carry is refused naming it."""
    from pbem.games.blockmania import RULES
    from pbem.games.blockmania.orders import Loot, parse_line
    assert parse_line("SACCHEGGIA red-1 SCARTA nail-gun-1 spit-gun-2")[0] == Loot("red-1", ("nail-gun-1", "spit-gun-2"))
    assert Loot("red-1", ("nail-gun-1",)).canonical() == "LOOT red-1 DISCARD nail-gun-1"
    assert parse_line("LOOT red-1")[0] == Loot("red-1")
    assert parse_line("LOOT red-1 DISCARD")[0] is None
    from dataclasses import replace
    from tests.games.blockmania.helpers import position
    state = replace(position({"red-1": ("citi-def", "curie:E4")}, carried={"red-1": ("nail-gun",)}), stage="combat")
    nail = "nail-gun-1"
    assert RULES.parse_orders(state, "red", f"LOOT red-1 DISCARD {nail}").ok
    refused = RULES.parse_orders(state, "red", "LOOT red-1 DISCARD spit-gun-9")
    assert not refused.ok and refused.diagnostics[0].message.key == "err-not-carried"


def test_a_collapse_removes_the_looted_marker_with_everything_else():
    """9.iii: "tutto ciò che esso contiene viene rimosso dal gioco, inclusi …": the list gives examples,
    so the Looted marker goes too ("Bank … automaticamente distrutte"); 12.iii then scores the Collapse
    (6), no longer the looted Bank (4)."""
    from pbem.games.blockmania import damage as D
    from pbem.games.blockmania.fire import defeat_points
    b = board(B("red-1", "citi-def", "curie:D5"), squares={"curie:G3": {"looted": True, "damage": 1}})
    assert kind(b, "curie:G3") == "interior BK"
    before = defeat_points(b)["red"]
    D.collapse(b, L(b, "curie:G3"))
    g3 = b.damage(L(b, "curie:G3"))
    assert g3.collapsed and not g3.looted and g3.damage == 0
    assert defeat_points(b)["red"] == before - 4 - 1 + 6
    assert err(C.check_loot(board(B("red-2", "citi-def", "curie:G3"), squares={"curie:G3": {"collapsed": True}}),
                            "red-2")) == "err-loot-square"


# -- 8.ix Scrawling ----------------------------------------------------------------------------------

def test_scrawling_needs_a_spray_can_no_roll_one_per_square_windows_only_flying():
    """8.ix: a Blocker with a Spray Can puts a Scrawl without a roll; on a Window only if it flies; one
    Scrawl per square."""
    b = board(B("red-1", "juves", "curie:C5", "spray-can"), B("red-2", "juves", "curie:C4", "spray-can", "bat-suit"),
              B("red-3", "juves", "curie:D5", "spray-can"), B("red-4", "juves", "curie:D5", "spray-can"),
              B("red-5", "juves", "curie:D4"))
    assert kind(b, "curie:C5") == "window RS" and kind(b, "curie:D5") == "interior RS"
    assert err(C.check_scrawl(b, "red-5")) == "err-scrawl-no-can"
    assert err(C.check_scrawl(b, "red-1")) == "err-scrawl-window"
    assert C.check_scrawl(b, "red-2") is None
    d = dice()
    C.scrawl(b, "red-3")
    assert b.damage(L(b, "curie:D5")).scrawled and b.blockers["red-3"].face_down and used_up(d)
    assert err(C.check_scrawl(b, "red-4")) == "err-scrawl-done"


# -- 8.viii Fire-setting -----------------------------------------------------------------------------

def test_setting_a_fire():
    """8.viii: 1d6 + Strength >= 6 puts a Fire in the Blocker's square; face down whatever the result."""
    b = board(B("red-1", "juves", "curie:D5"), B("red-2", "juves", "curie:D5"))
    assert C.set_fire(b, "red-1", dice(3)) is False and b.blockers["red-1"].face_down
    assert C.set_fire(b, "red-2", dice(4)) is True
    assert b.damage(L(b, "curie:D5")).fires == 1 and "note-combat-arson" in keys(b)


# -- 8.x Fire-fighting -------------------------------------------------------------------------------

def test_fighting_fires_from_a_fire_control_square():
    """8.x: from a square with the fire-control symbol, at an adjacent square (diagonals too): 1d6 +
    Strength per Fire, each 6 or more removes it; never a Fatty."""
    b = board(B("red-1", "citi-def", "curie:D3"), B("red-2", "fatty", "curie:D3"), B("red-3", "citi-def", "curie:D5"),
              squares={"curie:E4": {"fires": 2}})
    assert kind(b, "curie:D3") == "interior CV" and b.square(L(b, "curie:D3")).fire_control
    assert err(C.check_fight_fire(b, "red-2", L(b, "curie:E4"))) == "err-combat-cannot"
    assert err(C.check_fight_fire(b, "red-3", L(b, "curie:E4"))) == "err-firefight-control"
    assert err(C.check_fight_fire(b, "red-1", L(b, "curie:F5"))) == "err-firefight-adjacent"
    assert C.check_fight_fire(b, "red-1", L(b, "curie:E4")) is None  # diagonal
    d = dice(3, 2)  # 3 + 3 = 6 removes one; 2 + 3 = 5 does not
    assert C.fight_fire(b, "red-1", L(b, "curie:E4"), d) == 1 and used_up(d)
    assert b.damage(L(b, "curie:E4")).fires == 1 and b.blockers["red-1"].face_down


def test_every_message_key_has_english_and_italian_texts():
    """Every error and note of combat.py, damage.py and fire.py is in data/texts_combat.toml, [en] and
    [it], with the same placeholders."""
    import re
    import tomllib
    from importlib import resources
    from pathlib import Path

    data = tomllib.loads(resources.files("pbem.games.blockmania.data").joinpath("texts_combat.toml").read_text("utf-8"))
    src = "".join(Path(C.__file__).with_name(n).read_text("utf-8") for n in ("combat.py", "damage.py", "fire.py"))
    used = set(re.findall(r'"((?:err|note)-[a-z-]+)"', src))
    assert used <= set(data["en"]) and used <= set(data["it"])
    for key in data["en"]:
        assert set(re.findall(r"{(\w+)}", data["en"][key])) == set(re.findall(r"{(\w+)}", data["it"][key])), key


# -- a Window shared by a flier outside and a Blocker inside (6.ii, 6.ix) ------------------------------

def test_a_flier_outside_a_window_is_never_fought_in_any_phase():
    """6.ii: two Blockers may share a Window "uno all'interno e l'altro all'esterno del Block"; 6.ix: the
    enemy that comes in "può sparare al Blocker volante ma non ingaggiarlo in un Combattimento
    Ravvicinato". The movement rules knew it for the Blocker moving; the combat rules now know it too:
    no close combat is due between them and none may be declared; the flier is not barred from shooting
    as if it shared its square with an enemy (8.v); the Blocker inside may still be charged."""
    b = board(B("red-1", "citi-def", "curie:C5", "bat-suit", "spray-can", "spit-gun"), B("blue-1", "juves", "curie:C5"),
              B("red-2", "juves", "curie:D5"), B("blue-2", "juves", "keaton:H5"))
    assert kind(b, "curie:C5") == "window RS" and kind(b, "curie:D5") == "interior RS"
    assert kind(b, "keaton:H5") == "window RS"
    assert C.pending_close_combats(b) == []
    assert err(C.check_close_combat(b, "red-1", "blue-1")) == "err-combat-outside"
    assert C.check_shoot(b, "red-1", carried(b, "red-1", "spit-gun"), target="blue-2") is None
    assert C.check_close_combat(b, "red-2", "blue-1") is None  # a charge: blue-1 is in no close combat
    # "può sparare al Blocker volante": the two shoot through the window
    b = board(B("red-1", "citi-def", "curie:C5", "spit-gun"), B("blue-1", "juves", "curie:C5", "spray-can", "bat-suit"))
    gun = carried(b, "red-1", "spit-gun")
    assert C.check_shoot(b, "red-1", gun, target="blue-1") is None
    d = dice(5)  # 5 + 3 - 2 >= 6 (a Window: no +1)
    assert C.shoot(b, "red-1", gun, d, target="blue-1") == ["blue-1"] and used_up(d)


def test_no_charge_into_a_close_combat_already_begun():
    """6.ii: "Una volta iniziato in questo modo un Combattimento Ravvicinato, … nessun altro Blocker potrà
    entrare in alcun modo nello stesso Square": not only after a tie (8.vi), but as soon as two enemies
    share the square, so a second Blocker of the active player does not charge into it."""
    b = board(B("red-1", "juves", "curie:D5"), B("blue-1", "juves", "curie:D5"), B("red-2", "citi-def", "curie:E5"))
    assert C.pending_close_combats(b) == [("red-1", "blue-1")]
    assert err(C.check_close_combat(b, "red-2", "blue-1")) == "err-combat-locked-square"
    assert C.check_close_combat(b, "red-1", "blue-1") is None
