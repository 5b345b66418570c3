"""The Blockers, the Armoury and Hardware counters and the markers, entry by entry (section in each docstring).

Section numbers are the seed's (shared/seeds/004_*.txt); "QR" is the Goblin's quick reference. Numbers
are ours (docs/games/blockmania.md, "Blockers, Armoury and Hardware"): the tests pin them and check that
they obey the rulebook.
"""

import copy
import tomllib
from fractions import Fraction
from importlib import resources

import pytest

from pbem.games.blockmania.roster import (ROSTER, RosterError, can_fly, climbs, close_combat_total, kill_chance,
                                          load_roster, may_keep, parse_roster, success_chance)

F = Fraction


def _data() -> dict:
    return tomllib.loads(resources.files("pbem.games.blockmania.data").joinpath("roster.toml").read_text("utf-8"))


# -- Blocker types, 1.iii -----------------------------------------------------------------------------------

BLOCKERS = {  # ours: cost-Strength-Move, source
    "spugs": ("1-1-3", "pile"), "juves": ("2-2-5", "pile"), "crocks": ("2-2-4", "pile"),
    "futsie": ("2-3-4", "pile"), "citi-def": ("3-3-4", "pile"), "fatty": ("3-3-2", "pile"),
    "mob": ("3-4-3", "pile"), "superhero": ("4-4-6", "pile"), "klegg": ("3-5-3", "card"),
    "jaeger": ("0-4-4", "pile"),
}


@pytest.mark.parametrize("key,expected", sorted(BLOCKERS.items()))
def test_blocker_numbers(key, expected):
    """1.iii: "tre numeri ... il Costo di Attivazione, la Forza ed il Movimento"."""
    b = ROSTER.blocker(key)
    assert (b.label, b.source) == expected


def test_every_named_type_is_present():
    """The sources name Mob, Juves, Fatties, Citi-Def, Superhero, Futsie, Spugs, Crocks, Kleggs and Jaeger;
    the seed names Futsie (5.iii), Fatty (8.vi, 8.x), Mob and Superhero (6.iv, 6.ix)."""
    assert {b.key for b in ROSTER.blockers} == set(BLOCKERS)
    assert {b.name for b in ROSTER.blockers} >= {"Mob", "Juves", "Fatty", "Citi-Def", "Superhero", "Futsie",
                                                 "Spugs", "Crocks", "Kleggs", "Jaeger"}


FLAGS = {
    "fatty": {"no-flight", "no-mega-way", "no-sky-rail", "no-fire-fighting"},
    "mob": {"no-flight", "no-mega-way"},
    "superhero": {"flies", "no-equipment", "no-looting", "no-arson", "stacks-with-friend"},
    "futsie": {"anyone-activates", "attacks-own-block", "attacks-only-if-activated"},
    "jaeger": {"always-activated", "climbs"},
}


@pytest.mark.parametrize("key", sorted(BLOCKERS))
def test_special_rules(key):
    """6.ix (Fatty, Mob never fly; Superhero flies), 8.x (Fatties never fight fires), 5.iii (Futsie), and
    QR for the rest; QR lists no special rule for Juves, Spugs, Crocks, Citi-Def, Kleggs."""
    b = ROSTER.blocker(key)
    assert b.flags == FLAGS.get(key, set())
    assert b.special == (key in FLAGS)


def test_fatty_close_combat_bonus():
    """8.vi: "l'eventuale bonus se si tratta di Blocker di tipo Fatty"; QR: +2. Nobody else has one."""
    assert {b.key: b.close_combat_bonus for b in ROSTER.blockers if b.close_combat_bonus} == {"fatty": 2}


def test_costs_fit_the_command_phase():
    """5.ii: a new Blocker costs 4; 5.vi: 1-2 points can be left with nobody cheaper than 3 (so costs lie
    on both sides of 3); 2d6 (5.i) activates at least one Blocker of any type on an average roll (7)."""
    costs = {b.cost for b in ROSTER.blockers if not b.has("always-activated")}
    assert min(costs) < 3 <= max(costs) <= 7
    assert ROSTER.rules.new_blocker_cost == 4


def test_jaeger_always_activated_costs_nothing():
    """QR: "They're always considered activated": the cost is never paid."""
    j = ROSTER.blocker("jaeger")
    assert j.cost == 0 and j.has("always-activated") and climbs(j, ())


def test_kleggs_come_by_card():
    """The sources: Kleggs arrive by a Mania card; so they are in no block's pile, in a pool of their own."""
    k = ROSTER.blocker("klegg")
    assert k.source == "card" and k.pool >= 1
    assert ROSTER.card_blockers() == (k,)
    assert all(b.count("klegg") == 0 for b in ROSTER.blocks)


def test_unknown_flag_is_an_error():
    with pytest.raises(KeyError):
        ROSTER.blocker("mob").has("teleports")


# -- the blocks' piles, 3 -------------------------------------------------------------------------------------

PILE = {  # ours, the Block Mania blocks: type -> (plain, A, H)
    "spugs": (2, 0, 1), "juves": (3, 0, 1), "crocks": (1, 1, 1), "futsie": (1, 0, 0), "citi-def": (0, 3, 1),
    "fatty": (1, 1, 0), "mob": (1, 1, 0), "superhero": (1, 0, 0),
}


@pytest.mark.parametrize("block", ["curie", "keaton", "earhart", "houdini"])
def test_block_piles(block):
    """3: each player's Blockers "del proprio colore" in a pile; ours: 20 a block, the same mix, the Mega
    Mania blocks trading a Spugs for a Jaeger."""
    roster = ROSTER.block(block)
    mega = roster.edition == "mega-mania"
    assert roster.size == 20 and len(roster.pile()) == 20
    for key, (plain, a, h) in PILE.items():
        total = plain + a + h - (1 if mega and key == "spugs" else 0)
        assert roster.count(key) == total, key
        assert (roster.count(key, "A"), roster.count(key, "H")) == (a, h), key
    assert roster.count("jaeger") == (1 if mega else 0)


def test_editions_and_colours():
    """1.i: 2 maps and counter sheets in the base box, 2 more with Mega Mania; 1.iii: colours tell blocks apart."""
    assert [b.key for b in ROSTER.blocks_for(2)] == ["curie", "keaton"]
    assert len(ROSTER.blocks_for(4)) == 4 and len({b.colour for b in ROSTER.blocks}) == 4
    assert ROSTER.editions_for(2) == ("block-mania",)
    assert ROSTER.editions_for(4) == ("block-mania", "mega-mania")
    assert ROSTER.editions_for(6) == ("block-mania", "mega-mania", "block-mania", "block-mania")
    with pytest.raises(ValueError):
        ROSTER.editions_for(1)


def test_symbols_draw_within_strength():
    """1.iii, 5.ii: A draws an Armoury counter, H a Hardware one; 6.i: never more than Strength; QR: the
    Superhero never draws."""
    assert (ROSTER.symbol("A").pool, ROSTER.symbol("H").pool) == ("armoury", "hardware")
    for block in ROSTER.blocks:
        for entry in block.entries:
            assert len(entry.symbols) <= entry.blocker.carries
    assert ROSTER.blocker("superhero").carries == 0


def test_block_keys_match_the_block_maps():
    """3: each player takes a block and the Blockers of its colour: the maps (data/blocks.toml, when present)
    and the piles name the same blocks."""
    path = resources.files("pbem.games.blockmania.data").joinpath("blocks.toml")
    maps = tomllib.loads(path.read_text("utf-8")).get("block")
    assert isinstance(maps, list) and all(isinstance(m, dict) and "id" in m for m in maps)
    assert {m["id"] for m in maps} == {b.key for b in ROSTER.blocks}


# -- Armoury and Hardware counters, 1.iii, 6.xi, 8.iii, 9.i ------------------------------------------------------

COUNTERS = {  # key: pool, label, targets, counts per box
    "spit-gun": ("armoury", "4/+3", "blocker", 8),
    "heavy-laser": ("armoury", "8/+5 HW", "blocker", 2),
    "flamer": ("armoury", "2/+3", "blocker", 2),
    "missile-launcher": ("armoury", "6/+7 HW", "square-and-blocker", 2),
    "missile-defence-laser": ("armoury", "10/+8 HW", "square-or-blocker", 1),
    "demo-charge": ("armoury", "0/+8", "square-and-blocker", 2),
    "spray-can": ("hardware", "*", "blocker", 5),
    "bat-suit": ("hardware", "*", "blocker", 2),
    "power-board": ("hardware", "*", "blocker", 2),
    "sucker-gun": ("hardware", "*", "blocker", 2),
    "vibro-drill": ("hardware", "0/+7 HW", "own-square", 2),
    "nail-gun": ("hardware", "2/+2", "blocker", 3),
    "power-saw": ("hardware", "0/+3", "blocker", 3),
}


@pytest.mark.parametrize("key,expected", sorted(COUNTERS.items()))
def test_counter(key, expected):
    """1.iii: Armoury counters show range and damage; Hardware counters are weapons or equipment."""
    c = ROSTER.counter(key)
    pool, label, targets, count = expected
    assert (c.pool, c.label, c.targets) == (pool, label, targets)
    assert dict(c.counts) == {"block-mania": count, "mega-mania": count}


def test_counters_the_rules_name():
    """The seed names Bat Suit, Power Board (6.ix), Spray Can (8.ix), Missile Defence Laser, Missile Launcher,
    Demo Charge, Vibro Drill (9.i); the sources add Spit Gun, Flamer, heavy laser, Sucker Gun."""
    names = {c.name for c in ROSTER.counters}
    assert names >= {"Bat Suit", "Power Board", "Spray Can", "Missile Defence Laser", "Missile Launcher",
                     "Demo Charge", "Vibro Drill", "Spit Gun", "Flamer", "Heavy Laser", "Sucker Gun"}
    assert {c.key for c in ROSTER.counters if c.origin == "ours"} == {"nail-gun", "power-saw"}


def test_only_the_four_weapons_of_9i_damage_squares():
    """9.i: "Le armi ... in grado di causare danno ai Block sono: Missile Defence Laser, Missile Launcher, Demo
    Charge e Vibro Drill"; a square has Strength 6, so they need damage of at least 6."""
    wreckers = {c.key for c in ROSTER.counters if c.damages_squares}
    assert wreckers == {"missile-defence-laser", "missile-launcher", "demo-charge", "vibro-drill"}
    assert all((ROSTER.counter(k).damage or 0) >= 6 for k in wreckers)
    assert not ROSTER.counter("vibro-drill").hits_blockers


def test_armoury_square_needs_the_laser_or_a_charge():
    """9.i: Armoury squares have Strength 8, "molto più difficili da danneggiare": only damage 8 can."""
    s = ROSTER.rules.armoury_square_strength
    able = {c.key for c in ROSTER.counters if c.damages_squares and kill_chance(c.damage or 0, s) > 0}
    assert able == {"missile-defence-laser", "demo-charge"}
    assert kill_chance(8, s) == F(1, 6)


def test_sky_rail_only_the_missile_defence_laser():
    """9.v: the Sky Rail "può essere danneggiato solo con un Missile Defence Laser", Strength 4."""
    assert [c.key for c in ROSTER.counters if c.has("sky-rail")] == ["missile-defence-laser"]
    assert ROSTER.rules.sky_rail_strength == 4


def test_demo_charge():
    """QR: armed for 1 MP, explodes at the next Combat Phase, +4 against a Blocker in its square; 9.ii's
    example: one Demo Charge places 3 Structural Damage markers."""
    d = ROSTER.counter("demo-charge")
    assert d.has("timed-charge") and d.markers == 3 and d.damage_against_blocker() == 4
    assert ROSTER.rules.demo_arm_mp == 1 and not d.shoots and not d.in_close_combat


def test_heavy_weapons():
    """6.xi: HW counters cost 2 MP to set up; 8.iii: never used in close combat; 6.ix: fliers never carry them."""
    heavy = {c.key for c in ROSTER.counters if c.heavy}
    assert heavy == {"heavy-laser", "missile-launcher", "missile-defence-laser", "vibro-drill"}
    assert ROSTER.rules.heavy_setup_mp == 2
    assert not any(ROSTER.counter(k).in_close_combat for k in heavy)
    assert not can_fly(ROSTER.blocker("juves"), [ROSTER.counter("bat-suit"), ROSTER.counter("heavy-laser")])


def test_range_zero_is_close_combat_only():
    """8.iii: "Le armi con distanza 0 sono ... utili solo nel Combattimento Ravvicinato"; the Vibro Drill's
    own square (9.i) and the Demo Charge are the starred exceptions."""
    assert ROSTER.counter("power-saw").in_close_combat and not ROSTER.counter("power-saw").shoots
    assert ROSTER.counter("vibro-drill").shoots
    assert all(c.shoots for c in ROSTER.counters if c.weapon and (c.range or 0) >= 1)


def test_flamer_and_spray_can():
    """Sources: the Flamer may place Fire; 8.ix: scrawling needs a Spray Can."""
    assert ROSTER.counter("flamer").has("places-fire")
    assert [c.key for c in ROSTER.counters if c.has("scrawl")] == ["spray-can"]


def test_pools():
    """3: Hardware and Armoury counters drawn at random from two containers; Mega Mega-Mania adds a set."""
    assert len(ROSTER.pool("armoury", 2)) == 17 and len(ROSTER.pool("hardware", 2)) == 19
    assert len(ROSTER.pool("armoury", 4)) == 34 and len(ROSTER.pool("armoury", 5)) == 51
    assert all(c.pool == "armoury" for c in ROSTER.pool("armoury", 3))
    with pytest.raises(KeyError):
        ROSTER.pool("fridge", 2)


def test_a_and_h_symbols_can_be_served():
    """5.ii: every A or H Blocker draws, even after the Armoury or Mall is looted: the pools hold more than the
    symbols of the blocks in play."""
    for players in (2, 3, 4):
        blocks = ROSTER.blocks_for(players)
        for symbol, pool in (("A", "armoury"), ("H", "hardware")):
            wanted = sum(e.count for b in blocks for e in b.entries if symbol in e.symbols)
            assert len(ROSTER.pool(pool, players)) > wanted


# -- rules read off the counters ------------------------------------------------------------------------------------

def test_flying():
    """6.ix: the Superhero and Blockers with Bat Suit or Power Board fly; Fatty and Mob never, and never keep
    the equipment (QR: redrawn); QR: the Superhero draws no counter."""
    bat, board = ROSTER.counter("bat-suit"), ROSTER.counter("power-board")
    assert can_fly(ROSTER.blocker("superhero"), ())
    assert can_fly(ROSTER.blocker("citi-def"), [bat]) and not can_fly(ROSTER.blocker("citi-def"), ())
    for key in ("fatty", "mob"):
        assert not can_fly(ROSTER.blocker(key), [board])
        assert not may_keep(ROSTER.blocker(key), board) and may_keep(ROSTER.blocker(key), ROSTER.counter("spit-gun"))
    assert not may_keep(ROSTER.blocker("superhero"), ROSTER.counter("spit-gun"))


def test_close_combat_total():
    """8.vi: Strength + every weapon carried but heavy ones + the Fatty's bonus."""
    fatty, saw, gun, laser = (ROSTER.blocker("fatty"), ROSTER.counter("power-saw"), ROSTER.counter("spit-gun"),
                              ROSTER.counter("heavy-laser"))
    assert close_combat_total(fatty, [saw, gun, laser]) == 3 + 2 + 3 + 3
    assert close_combat_total(ROSTER.blocker("juves"), [ROSTER.counter("spray-can")]) == 2


@pytest.mark.parametrize("damage,strength,exposed,chance", [
    (3, 2, False, F(2, 6)), (3, 2, True, F(3, 6)), (3, 3, False, F(1, 6)), (3, 4, False, F(0)),
    (3, 4, True, F(1, 6)), (5, 4, False, F(2, 6)), (7, 6, False, F(2, 6)), (8, 6, False, F(3, 6)),
    (4, 1, False, F(4, 6)), (0, 0, False, F(1, 6)),
])
def test_kill_chance(damage, strength, exposed, chance):
    """7.ii, 8.v: 1d6 + damage (+1 Open Air or Civic) - Strength >= 6 kills."""
    assert kill_chance(damage, strength, exposed) == chance


def test_success_chance():
    """8.vii, 8.viii, 8.x: 1d6 + Strength >= 6."""
    assert [success_chance(s) for s in (1, 2, 3, 4, 5)] == [F(2, 6), F(3, 6), F(4, 6), F(5, 6), F(1)]


def test_common_gun_is_neither_useless_nor_certain():
    """Design (docs): the Spit Gun kills the piles' average Blocker (Strength 2-3) a third of the time or less,
    never a Klegg behind cover, always has a chance in the open but against a Klegg."""
    gun = ROSTER.counter("spit-gun").damage or 0
    assert kill_chance(gun, 2) == F(1, 3) and kill_chance(gun, 3) == F(1, 6)
    assert kill_chance(gun, 5) == 0
    assert all(kill_chance(gun, b.strength, exposed=True) > 0 for b in ROSTER.blockers if b.key != "klegg")


def test_markers():
    """1.iii: fires, structural damage, collapses, Sky Rail trains, Justice units; 8.vii Looted, 8.ix Scrawl,
    9.vi Severed, 5.i the Command Points marker."""
    assert {m.key for m in ROSTER.markers} == {
        "fire", "structural-damage", "collapse", "looted", "scrawl", "severed", "sky-rail-train", "judges",
        "command-points", "demo-charge-armed"}
    assert ROSTER.marker("command-points").count == 4


def test_rule_numbers():
    """3, 5.ii, 5.v, 6.x, 7.ii, 9.i, 9.vi, 9.vii."""
    r = ROSTER.rules
    assert (r.starting_blockers, r.new_blocker_cost, r.extra_mp_cost, r.hand_over_mp) == (4, 4, 1, 1)
    assert (r.kill_target, r.exposed_bonus, r.square_strength, r.armoury_square_strength) == (6, 1, 6, 8)
    assert (r.pedway_strength, r.mega_way_strength, r.climb_up_cost) == (6, 6, 1)


# -- the loader's checks ---------------------------------------------------------------------------------------------

def _broken(change) -> dict:
    data = copy.deepcopy(_data())
    change(data)
    return data


def _blocker(d, key):
    return next(b for b in d["blocker"] if b["key"] == key)


def _counter(d, key):
    return next(c for c in d["counter"] if c["key"] == key)


@pytest.mark.parametrize("change,message", [
    (lambda d: d["blocker"].append(dict(d["blocker"][0])), "blocker 'spugs' appears twice"),
    (lambda d: _blocker(d, "mob")["flags"].append("teleports"), r"blocker 'mob': unknown flags \['teleports'\]"),
    (lambda d: _blocker(d, "superhero")["flags"].append("no-flight"), "blocker 'superhero': flies and no-flight"),
    (lambda d: _blocker(d, "jaeger").update(cost=2), "blocker 'jaeger': a cost of 0"),
    (lambda d: _blocker(d, "juves").update(strength=0), r"blocker 'juves': cost-strength-move 2-0-5"),
    (lambda d: _blocker(d, "klegg").update(source="pile"), "blocker 'klegg': a pool of counters"),
    (lambda d: d["block"][0]["counters"].append({"blocker": "superhero", "symbol": "A", "count": 1}),
     "block 'curie', 'superhero': 'superhero' never draws"),
    (lambda d: d["block"][0]["counters"].append({"blocker": "spugs", "symbol": ["A", "H"], "count": 1}),
     r"block 'curie', 'spugs': draws 2 counters, carries 1"),
    (lambda d: d["block"][1]["counters"].append({"blocker": "klegg", "count": 1}),
     "block 'keaton', 'klegg': comes by card"),
    (lambda d: d["block"][2]["counters"].append({"blocker": "ninja", "count": 1}), "block 'earhart': unknown blocker"),
    (lambda d: d["block"][3].update(size=21), "block 'houdini' adds up to 20 Blockers, declared 21"),
    (lambda d: d["block"][3].update(colour="red"), "same colour"),
    (lambda d: d["block"][0]["counters"].append({"blocker": "mob", "count": 1}),
     "'mob' with symbols \\[\\] appears twice"),
    (lambda d: _counter(d, "heavy-laser").update(close_combat=True), "counter 'heavy-laser': heavy weapons"),
    (lambda d: _counter(d, "missile-launcher").update(damage=5),
     "counter 'missile-launcher': damages squares with damage 5"),
    (lambda d: _counter(d, "spit-gun").update(targets="square-and-blocker", damage=6), "9.i names"),
    (lambda d: _counter(d, "vibro-drill").update(range=2), "counter 'vibro-drill': own-square weapons have range 0"),
    (lambda d: _counter(d, "flamer").update(abilities=["sky-rail"]), "counter 'flamer': only a weapon that damages"),
    (lambda d: _counter(d, "bat-suit").update(range=1, damage=1), "counter 'bat-suit': flying equipment"),
    (lambda d: _counter(d, "spray-can").update(range=1), "counter 'spray-can': a weapon has both range and damage"),
    (lambda d: _counter(d, "spray-can").update(pool="armoury"), "counter 'spray-can': Armoury counters are weapons"),
    (lambda d: _counter(d, "nail-gun").update(count={"block-mania": 0}), "counter 'nail-gun': counts"),
    (lambda d: _counter(d, "nail-gun").update(count={"expansion": 1}), "counter 'nail-gun': counts"),
    (lambda d: _counter(d, "power-saw").update(close_combat=False), "counter 'power-saw': a range-0 weapon"),
    (lambda d: _counter(d, "spray-can").update(abilities=[]), r"no counter with 'scrawl' \(8.ix\)"),
    (lambda d: d["symbol"][0].update(pool="hardware"), "A draws from the Armoury"),
    (lambda d: d["rules"].update(armoury_square_strength=6), "Armoury square is stronger"),
    (lambda d: d["marker"].append({"key": "fire", "count": 3}), "marker 'fire' appears twice"),
])
def test_inconsistent_data_is_rejected(change, message):
    with pytest.raises(RosterError, match=message):
        parse_roster(_broken(change))


def test_malformed_text_gives_a_roster_error():
    with pytest.raises(RosterError):
        load_roster("rules = ")
    with pytest.raises(RosterError, match="missing"):
        load_roster("[rules]\nstarting_blockers = 4\n")
