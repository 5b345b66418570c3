"""Arsenals (rulebook, "Arsenale" and "REGOLE SPECIALI")."""

from pbem.games.kriegspiel import RULES

from .helpers import covered, keys, play, position, sheet, unit_at

# North's relay Q8 (on D8's column) relays along R7-S6-T5; its relay K15 (on B15's column)
# relays along L16-M17-N18-O19-P20-Q21-R22.  Both cavalry are connected.
NORTH = "RELAY Q8\nHORSE-RELAY K15\nCAVALRY T5 R22\nINFANTRY A1"
SOUTH = "INFANTRY M20 T12\nRELAY M21"


def test_occupying_an_empty_enemy_arsenal_destroys_it():
    # "Un arsenale e' distrutto se e' occupato dal nemico."
    state = position(north=NORTH, south=SOUTH)
    after = play(state, "MOVE T5 T3")
    arsenal = next(a for a in after.arsenals if a.square == "T3")
    assert arsenal.destroyed and after.last_turn.arsenal_destroyed == arsenal
    assert unit_at(after, "T3").side == "north"
    assert "T2" not in covered(after, "south")  # a destroyed arsenal radiates nothing
    view = RULES.view(after, None)
    assert {"square": "T3", "side": "south", "destroyed": True} in view["arsenals"]
    assert view["last_turn"]["arsenal_destroyed"] == {"square": "T3", "side": "south"}


def test_destroying_an_arsenal_counts_as_the_attack():
    # "La distruzione di un arsenale nemico conta come un attacco e non si possono lanciare
    # altri attacchi in quel turno."
    state = position(north=NORTH, south=SOUTH + "\nINFANTRY T7")
    assert sheet(state, "ATTACK T7").ok  # T5 reaches T7
    assert keys(sheet(state, "MOVE T5 T3\nATTACK T7")) == ["err-attack-after-arsenal"]
    assert keys(sheet(state, "MOVE T5 T3\nMOVE R22 T23")) == ["err-second-arsenal"]


def test_relays_cannot_destroy_arsenals():
    # "Nota: le staffette non hanno potenza offensiva perciò non possono distruggere un arsenale."
    state = position(north="HORSE-RELAY S4\nINFANTRY A1", south=SOUTH)
    assert keys(sheet(state, "MOVE S4 T3")) == ["err-relay-arsenal"]
    assert sheet(state, "MOVE S4 T4").ok


def test_only_empty_arsenals_can_be_occupied():
    # "Solo gli arsenali vuoti possono essere occupati."
    state = position(north=NORTH, south=SOUTH + "\nINFANTRY T3")
    assert keys(sheet(state, "MOVE T5 T3")) == ["err-move-occupied"]
    assert keys(sheet(state, "MOVE T5 T4 T3")) == ["err-move-occupied"]


def test_template_marks_enemy_arsenals():
    state = position(north=NORTH, south=SOUTH)
    text = RULES.template(state, "north", "en")
    assert "T3*" in text and "T23*" in text


def test_passing_through_an_enemy_arsenal_does_not_destroy_it():
    # Decision: only ending a move on the arsenal occupies it.  S4 is connected through T5.
    state = position(north=NORTH + "\nCAVALRY S4", south=SOUTH)
    after = play(state, "MOVE S4 T3 T2")
    assert not any(a.destroyed for a in after.arsenals)
    assert unit_at(after, "T2").side == "north"
