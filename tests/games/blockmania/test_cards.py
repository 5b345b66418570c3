"""The 55 double-sided Mania / Justice cards, face by face (section in each docstring).

Section numbers are the seed's (shared/seeds/004_*.txt). The deck's size, use and the timings of the
three Mania kinds are the rulebook's; every face is ours (docs/games/blockmania.md, "The Mania / Justice
deck"): the tests pin the composition and check every face against the rules and the roster.
"""

import copy
import tomllib
from importlib import resources

import pytest

from pbem.games.blockmania.cards import (DECK, EFFECTS, KINDS, SQUARE_KINDS, CardsError, load_cards,
                                         parse_cards)
from pbem.games.blockmania.roster import ROSTER


def _data() -> dict:
    return tomllib.loads(resources.files("pbem.games.blockmania.data").joinpath("cards.toml").read_text("utf-8"))


# -- the deck, 1.i, 3, 10.ii, 11.i, 12 ------------------------------------------------------------------------------

def test_fifty_five_double_sided_cards():
    """1.i: "un mazzo di 55 carte stampate su due lati"; 1.iv: a Mania front and a Justice back."""
    assert len(DECK.cards) == 55
    assert [c.number for c in DECK.cards] == list(range(1, 56))
    assert all(c.mania.side == "mania" and c.justice.side == "justice" for c in DECK.cards)


def test_composition():
    """11.i: Command (CP), Hazard (H) and Attack (A) cards; ours: 19, 18, 18."""
    assert {k: DECK.count(k) for k in KINDS} == {"command": 19, "hazard": 18, "attack": 18, "justice": 55}


MANIA = {  # ours: face -> (kind, cards)
    "block-pride": ("command", 3), "rabble-rouser": ("command", 2), "sky-rail-running": ("command", 4),
    "kleggs-for-hire": ("command", 2), "block-rally": ("command", 2), "hyperactive": ("command", 2),
    "volunteers": ("command", 2), "weapons-issue": ("command", 1), "mega-sale": ("command", 1),
    "sniper": ("hazard", 3), "sky-surfers": ("hazard", 2), "muggers": ("hazard", 1), "lift-jammed": ("hazard", 2),
    "shoppers-stampede": ("hazard", 1), "plaza-gang": ("hazard", 2), "pedway-breakdown": ("hazard", 2),
    "gridlock": ("hazard", 2), "crowd-surge": ("hazard", 1), "bank-guards": ("hazard", 1),
    "high-winds": ("hazard", 1), "steady-aim": ("attack", 3), "dirty-fighting": ("attack", 3),
    "duck": ("attack", 2), "weapon-jams": ("attack", 2), "berserk": ("attack", 2), "looters-luck": ("attack", 1),
    "firebug": ("attack", 1), "fire-drill": ("attack", 1), "structural-weakness": ("attack", 2),
    "ambush": ("attack", 1),
}
JUSTICE = {  # ours: face -> cards
    "judges-patrol": 8, "block-sweep": 7, "mass-arrests": 7, "iso-cubes": 4, "riot-foam": 3, "h-wagon-patrol": 4,
    "spy-in-the-sky": 4, "weapons-sweep": 5, "psi-division": 3, "crime-blitz": 3, "juve-court": 4,
    "riot-squad": 3,
}


@pytest.mark.parametrize("key,expected", sorted(MANIA.items()))
def test_mania_face(key, expected):
    """11.i: "possono essere di tre tipi diversi: Command, Hazard e Attack"."""
    face = DECK.face(key)
    assert (face.kind.key, DECK.copies(key)) == expected


@pytest.mark.parametrize("key,copies", sorted(JUSTICE.items()))
def test_justice_face(key, copies):
    """12.ii: the blue side, used only in the Final Phase."""
    face = DECK.face(key)
    assert (face.side, DECK.copies(key)) == ("justice", copies)


def test_deck_rules():
    """3: 16 / 12 / 6 cards set aside for 2 / 3 / 4 players, 3 in hand; 10.ii, 11.i: draw one a turn, never
    more than 3; 12.ii: exactly one Justice card a turn; Mega Mega-Mania: 12 cards a player beyond the 4th."""
    r = DECK.rules
    assert dict(r.set_aside) == {2: 16, 3: 12, 4: 6}
    assert (r.hand, r.hand_limit, r.draw_per_turn, r.justice_per_turn) == (3, 3, 1, 1)
    assert [DECK.mania_draws(n) for n in (2, 3, 4)] == [33, 34, 37]
    assert (DECK.extra_deck(4), DECK.extra_deck(6)) == (0, 24)  # the seed's example: 6 players, 24 cards
    assert DECK.max_players == 8
    assert r.justice_fallback == 1 and r.justice_reshuffle


# -- every face: kind, timing, effect --------------------------------------------------------------------------------

@pytest.mark.parametrize("card", DECK.cards, ids=lambda c: f"card-{c.number}")
def test_every_card_has_two_valid_faces(card):
    """1.iv, 11.i, 12.ii: a Mania face of one of the three kinds and a Justice face; each effect is a keyed
    type allowed on that kind, with its parameters."""
    for face in (card.mania, card.justice):
        kinds, spec = EFFECTS[face.effect.type]
        assert face.kind.key in kinds
        assert set(face.effect.params) == set(spec)
        assert face.phases and set(face.phases) <= set(face.kind.phases)
        assert face.window in face.kind.windows
    assert card.mania.kind.key in ("command", "hazard", "attack")
    assert card.justice.kind.key == "justice"


def test_command_timing():
    """11.ii: any time in the Command Phase, at once, only the active player's pieces."""
    for face in (f for f in DECK.mania if f.kind.key == "command"):
        assert face.phases == ("command",) and face.window == "any-time" and face.kind.affects == "own"
        assert face.playable("command", active=True) and not face.playable("command", active=False)
        assert not face.playable("combat", active=True)


def test_hazard_timing_and_squares():
    """11.iii: a square kind in bold; against a Blocker in or passing through it in the Command, Defensive Fire
    or Combat Phase, by any player; in the Command Phase before the next Blocker moves."""
    hazards = [f for f in DECK.mania if f.kind.key == "hazard"]
    for face in hazards:
        assert face.square in SQUARE_KINDS and face.window == "in-square"
        assert face.phases == ("command", "defensive-fire", "combat")
        assert face.playable("defensive-fire", active=False) and face.playable("command", active=True)
    assert all(f.square is None for f in (*DECK.mania, *DECK.justice) if f.kind.key != "hazard")


def test_hazard_attacks_use_the_bonus_as_damage():
    """11.iii: the card's opponent shoots, its bonus counts as the weapon's damage (8.v)."""
    bonuses = {f.key: f.effect["bonus"] for f in DECK.mania if f.effect.type == "hazard-attack"}
    assert bonuses == {"sniper": 4, "sky-surfers": 3, "muggers": 3, "shoppers-stampede": 4, "plaza-gang": 3,
                       "bank-guards": 5}
    stops = {f.key for f in DECK.mania if f.effect.type == "hazard-stop"}
    assert stops == {"lift-jammed", "pedway-breakdown", "gridlock", "crowd-surge", "high-winds"}


def test_attack_timing():
    """11.iv: any time in Defensive Fire or Combat; cards changing dice before the dice."""
    for face in (f for f in DECK.mania if f.kind.key == "attack"):
        assert set(face.phases) <= {"defensive-fire", "combat"}
        if face.effect.type in ("roll-modifier", "cancel-shot"):
            assert face.window == "before-dice"
        assert face.playable(face.phases[0], active=False)
    assert DECK.face("berserk").phases == ("combat",)
    assert DECK.face("ambush").phases == ("defensive-fire",)


def test_justice_timing():
    """12.ii: one Justice card at the start of the active player's Command Phase."""
    for face in DECK.justice:
        assert face.window == "command-start" and face.played_by == "active" and face.phases == ("command",)


# -- cross-references with the roster --------------------------------------------------------------------------------

def test_kleggs_by_card():
    """The sources: Kleggs arrive by a Mania card; a card hires them from their own pool (roster.toml)."""
    hire = [f for f in DECK.mania if f.effect.type == "hire-blocker"]
    assert [f.key for f in hire] == ["kleggs-for-hire"]
    klegg = ROSTER.blocker(hire[0].effect["blocker"])
    assert klegg.source == "card" and hire[0].effect["count"] <= klegg.pool


def test_every_blocker_named_by_a_card_exists():
    """Cards naming Blocker types name the roster's."""
    named = {b for f in DECK.justice if f.effect.type == "arrest-types" for b in f.effect["blockers"]}
    named |= {f.effect["blocker"] for f in DECK.mania if f.effect.type == "hire-blocker"}
    assert named == {"futsie", "superhero", "crocks", "klegg", "juves", "spugs"}
    assert named <= {b.key for b in ROSTER.blockers}


def test_markers_and_counters_named_by_cards_exist():
    """6.vi: Sky Rail trains come only by their cards; 1.iii: Justice unit markers; the Weapons Sweep's heavy
    weapons (6.xi)."""
    assert DECK.face("judges-patrol").effect["marker"] == "judges"
    ROSTER.marker("judges"), ROSTER.marker("sky-rail-train")
    assert [f.key for f in DECK.mania if f.effect.type == "sky-rail-train"] == ["sky-rail-running"]
    assert DECK.face("weapons-sweep").effect["counter"] == "heavy"


def test_command_reroll_exists():
    """11.ii names cards that re-roll the Command Points."""
    assert DECK.face("rabble-rouser").effect.type == "command-reroll"


def test_justice_faces_remove_blockers():
    """12.ii: Justice cards "comportano normalmente l'eliminazione dei Blocker"; with the fallback every
    one removes at least one, so the Final Phase ends (12.iii)."""
    assert all(f.effect.type.startswith("arrest") or f.effect.type == "judge-patrol" for f in DECK.justice)


def test_square_kinds_match_the_block_maps():
    """1.ii: the square kinds named by cards are those of the block maps (when the maps are loaded)."""
    from pbem.games.blockmania import blocks

    kinds = blocks.SQUARE_KINDS
    used = {f.square for f in DECK.mania if f.square} | {
        f.effect["square"] for f in DECK.justice if f.effect.type == "arrest-in-squares"}
    assert used <= set(kinds)


# -- the loader's checks -----------------------------------------------------------------------------------------------

def _broken(change) -> dict:
    data = copy.deepcopy(_data())
    change(data)
    return data


def _mania(d, key):
    return next(f for f in d["mania"] if f["key"] == key)


def _justice(d, key):
    return next(f for f in d["justice"] if f["key"] == key)


@pytest.mark.parametrize("change,message", [
    (lambda d: d["card"][0].update(copies=4), "the cards add up to 56, the deck has 55"),
    (lambda d: d["card"].append(dict(d["card"][0])), "card 'block-pride' / 'judges-patrol' appears twice"),
    (lambda d: d["card"][0].update(mania="free-beer"), "card 'free-beer' / 'judges-patrol': unknown"),
    (lambda d: _mania(d, "sniper").update(square="rooftop"), "mania face 'sniper': unknown square kind 'rooftop'"),
    (lambda d: _mania(d, "sniper").pop("square"), "mania face 'sniper': Hazard cards, and only they"),
    (lambda d: _mania(d, "block-pride").update(square="civic"), "mania face 'block-pride': Hazard cards"),
    (lambda d: _mania(d, "block-pride").update(effect={"type": "hazard-stop"}),
     "mania face 'block-pride': a command face cannot have the effect 'hazard-stop'"),
    (lambda d: _mania(d, "block-pride").update(effect={"type": "teleport"}), "unknown effect type 'teleport'"),
    (lambda d: _mania(d, "block-pride").update(effect={"type": "command-points", "amount": 0}),
     "block-pride.*amount: must be a positive"),
    (lambda d: _mania(d, "block-pride").update(effect={"type": "command-points"}), "takes \\['amount'\\], got \\[\\]"),
    (lambda d: _mania(d, "block-pride").update(phases=["combat"]), "mania face 'block-pride': phases"),
    (lambda d: _mania(d, "steady-aim").update(window="any-time"), "mania face 'steady-aim': a card changing dice"),
    (lambda d: _mania(d, "looters-luck").update(phases=["defensive-fire"]), "no looting attack happens"),
    (lambda d: _mania(d, "kleggs-for-hire")["effect"].update(blocker="mob"), "a card hires 'mob'"),
    (lambda d: _mania(d, "kleggs-for-hire")["effect"].update(blocker="dalek"), "unknown Blocker type 'dalek'"),
    (lambda d: _mania(d, "kleggs-for-hire")["effect"].update(count=9), "hires more 'klegg' than their pool"),
    (lambda d: _mania(d, "kleggs-for-hire").update(effect={"type": "free-blocker", "count": 1}),
     "Blocker 'klegg' comes by card, but no card brings it"),
    (lambda d: _mania(d, "sky-rail-running").update(effect={"type": "free-blocker", "count": 1}),
     "no card places a Sky Rail train"),
    (lambda d: _justice(d, "psi-division")["effect"].update(blockers=["futsie", "vampire"]),
     "justice face 'psi-division'.*unknown"),
    (lambda d: _justice(d, "weapons-sweep")["effect"].update(counter="lawgiver"), "unknown counter 'lawgiver'"),
    (lambda d: _justice(d, "judges-patrol")["effect"].update(marker="judge-dredd"), "unknown marker"),
    (lambda d: _justice(d, "block-sweep")["effect"].update(scope="city"), "'city' is not one of"),
    (lambda d: d["kind"][0].update(played_by="any"), "kind 'command'.*contradict the rulebook"),
    (lambda d: d["kind"][2].update(phases=["combat"]), "kind 'attack'.*contradict the rulebook"),
    (lambda d: d["deck"].update(set_aside={"2": 16, "3": 12}), "set_aside for 2, 3 and 4"),
    (lambda d: d["deck"].update(set_aside={"2": 6, "3": 12, "4": 16}), "fewer cards set aside"),
    (lambda d: d["deck"].update(justice_per_turn=2), "exactly one Justice card"),
    (lambda d: d["justice"].append({"key": "curfew", "name": "Curfew", "effect": {"type": "arrest-locked"}}),
     "faces on no card: \\['curfew'\\]"),
    (lambda d: d["mania"].append(dict(_mania(d, "duck"))), "face 'duck' appears twice"),
])
def test_inconsistent_data_is_rejected(change, message):
    with pytest.raises(CardsError, match=message):
        parse_cards(_broken(change))


def test_malformed_text_gives_a_cards_error():
    with pytest.raises(CardsError):
        load_cards("deck = ")
    with pytest.raises(CardsError, match="missing"):
        load_cards("[deck]\nsize = 55\n")


def test_every_kind_of_square_has_the_name_the_cards_use():
    """1.ii: every kind of square of the block maps is named in the cards' vocabulary."""
    from pbem.games.blockmania import blocks

    assert set(blocks.load_blocks().kinds) == set(blocks.KIND_KEYS)
