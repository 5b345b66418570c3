"""The deck in play (rulebook 3, 10.ii, 11, 12): deck.py over a Board. Section numbers are the Italian
rulebook's (shared/seeds/004_*.txt). Red (Marie Curie Block) is the active player, blue (Buster Keaton)
the other. A shuffle is a roll over the cards left, so ``dice(1, ...)`` keeps the number order."""

from __future__ import annotations

import re
import tomllib
from dataclasses import replace
from importlib import resources
from pathlib import Path

from pbem.games.blockmania import deck as D
from pbem.games.blockmania import movement as mv
from pbem.games.blockmania.board import Board
from pbem.games.blockmania.cards import DECK
from pbem.games.blockmania.combat import check_defensive_fire, shoot
from pbem.games.blockmania.fire import defeat_points
from pbem.games.blockmania.state import DEAD, JUSTICE, PILE, Seat
from tests.games.blockmania.helpers import board_of, dice, key, notes, sq, start
from tests.games.blockmania.positions import B, board, kind, used_up


def card(face_key: str, nth: int = 0) -> int:
    """The number of the ``nth`` card carrying that face."""
    return [c.number for c in DECK.cards if face_key in (c.mania.key, c.justice.key)][nth]


def ones(n: int) -> list[int]:
    return [1] * n


def holding(b: Board, seat: str, *faces: str) -> Board:
    b.hands[seat] = [card(f) for f in faces]
    return b


# -- 3 set-up ------------------------------------------------------------------------------------------

def test_setup_shuffles_sets_aside_and_deals_three_each():
    """3: shuffle, set aside 16 / 12 / 6 cards for 2 / 3 / 4 players (kept for 12), each player takes 3."""
    for players, aside in ((2, 16), (3, 12), (4, 6)):
        b = board_of(players=players)
        d = dice(*ones(54))
        D.deal(b, d)
        assert used_up(d) and b.set_aside == list(range(1, aside + 1))
        assert b.hands["red"] == [aside + 1, aside + 2, aside + 3]
        assert b.hands["blue"] == [aside + 4, aside + 5, aside + 6]
        assert len(b.deck) == 55 - aside - 3 * players and not b.final
        state = b.frozen()
        assert state.seat("red").hand == tuple(b.hands["red"]) and len(state.deck) == len(b.deck)
        assert len(state.set_aside) == aside and state.discards == () and not state.final


def test_shuffle_is_a_roll_over_the_cards_left():
    """3 (a shuffle through the dice): each position a roll over the cards left, in number order."""
    d = dice(3, 1)
    assert D.shuffle([7, 2, 5], d, "test") == [7, 2, 5] and used_up(d)
    assert [r.sides for r in d.record] == [3, 2]


# -- 10.ii the draw and the hand limit -----------------------------------------------------------------

def test_end_phase_draw_tells_the_card_to_the_drawer_only():
    """10.ii, 11.i: one card at the end of the turn; counts are public, the card's name goes to the drawer."""
    b = holding(board_of(), "red", "block-pride")
    b.deck = [card("sniper"), card("muggers")]
    assert D.draw(b, "red", dice()) == card("sniper")
    assert b.hands["red"] == [card("block-pride"), card("sniper")] and b.deck == [card("muggers")]
    public = [n for n in b.notes if n.to is None]
    private = [n for n in b.notes if n.to is not None]
    assert [n.key for n in public] == ["note-card-drawn"] and "Sniper" not in str(public)
    assert [(n.key, n.to) for n in private] == [("note-card-drawn-name", ("red",))]
    assert dict(private[0].args)["card"] == "Sniper"


def test_hand_limit_discards_the_card_drawn_unless_another_is_named():
    """10.ii, 11.i: a fourth card is discarded at once: by default the one just drawn; the player may
    name in his orders the card to discard instead."""
    b = holding(board_of(), "red", "block-pride", "sniper", "muggers")
    b.deck = [card("duck"), card("berserk"), card("ambush"), card("firebug")]
    D.draw(b, "red", dice())
    assert b.hands["red"] == [card("block-pride"), card("sniper"), card("muggers")]
    assert b.discards == [card("duck")]
    D.draw(b, "red", dice(), discard=card("sniper"))
    assert b.hands["red"] == [card("block-pride"), card("muggers"), card("berserk")]
    assert b.discards == [card("duck"), card("sniper")]
    D.draw(b, "red", dice(), discard=999)  # not in hand: the card drawn goes
    assert b.discards[-1] == card("ambush") and len(b.hands["red"]) == 3
    assert all(n.to == ("red",) for n in b.notes if n.key == "note-card-limit-name")


# -- 11.ii Command cards -------------------------------------------------------------------------------

def test_command_cards_only_by_the_active_player_in_the_command_phase():
    """11.i, 11.ii: a Command card is played by the active player in his Command Phase, at once; not by
    the others; not in the Combat Phase; only from one's hand."""
    b = holding(board_of(cp=5), "red", "block-pride")
    holding(b, "blue", "block-pride")
    assert key(D.check_command(b, "blue", card("block-pride"))) == "err-card-when"
    assert key(D.check_command(b, "red", card("sniper"))) == "err-card-not-in-hand"
    assert D.check_command(b, "red", card("block-pride")) is None
    D.play_command(b, "red", card("block-pride"), dice())
    assert b.command_points == 8 and b.hands["red"] == [] and b.discards == [card("block-pride")]
    c = holding(board_of(stage="combat"), "red", "block-pride")
    assert key(D.check_command(c, "red", card("block-pride"))) == "err-card-when"


def test_command_reroll_replaces_the_points_and_never_activates_twice():
    """11.ii: a re-roll of the Command Points replaces them; a Blocker already activated is not again."""
    b = holding(board_of({"red-1": ("spugs", "curie:C5")}, cp=3), "red", "rabble-rouser")
    start(b, "red-1")
    D.play_command(b, "red", card("rabble-rouser"), dice(5, 6))
    assert b.command_points == 11 and b.moving.blocker == "red-1"
    assert key(mv.check_activate(b, "red-1")) == "err-already-activated"


def test_command_cards_act_on_own_pieces_through_the_movement_rules():
    """11.ii, 5.ii, 5.iii, 5.v, 6.vi: free Blocker and hired Kleggs placed by the dice at an address; a
    free activation; extra MP for the Blocker moving; a Sky Rail train; never on another's Blocker."""
    b = board_of({"red-1": ("citi-def", PILE), "red-2": ("spugs", "curie:C5"), "blue-1": ("juves", "keaton:C5")},
                 cp=0, piles={"red": ("red-1",)})
    holding(b, "red", "block-rally", "kleggs-for-hire", "volunteers")
    D.play_command(b, "red", card("block-rally"), dice(3, 4))
    assert mv.where(b, "red-1") == sq(b, "curie:F5", "RS") and b.command_points == 0
    assert D.play_command(b, "red", card("kleggs-for-hire"), dice(3, 5)) == ["red-klegg-1"]
    assert b.blockers["red-klegg-1"].owner == "red" and b.type("red-klegg-1").key == "klegg"
    assert key(D.check_command(b, "red", card("volunteers"), blocker="blue-1")) == "err-not-yours"
    assert D.check_command(b, "red", card("volunteers"), blocker="red-2") is None
    D.play_command(b, "red", card("volunteers"), dice(), blocker="red-2")
    assert b.moving.blocker == "red-2" and b.command_points == 0
    holding(b, "red", "hyperactive", "sky-rail-running")
    D.play_command(b, "red", card("hyperactive"), dice())
    assert b.moving.mp == 3 + 3
    station = b.ring.stations()[0]
    assert key(D.check_command(b, "red", card("sky-rail-running"), stations=(sq(b, "curie:C5"),))) \
        == "err-card-station"
    D.play_command(b, "red", card("sky-rail-running"), dice(), stations=(station,))
    assert mv.has_train(b, station)


# -- 11.iii Hazard cards -------------------------------------------------------------------------------

def test_hazard_attack_uses_the_bonus_as_weapon_damage():
    """11.iii, 8.v: the card's attacker shoots: 1d6 + bonus (+1 Open Air / Civic) - Strength >= 6 kills;
    any player may play it, against a Blocker in a square of the card's kind only."""
    b = board(B("red-1", "citi-def", "curie:C5"), B("red-2", "citi-def", "curie:D5"))
    assert kind(b, "curie:C5") == "window RS" and kind(b, "curie:D5") == "interior RS"
    b.hands["blue"] = [card("sniper", 0), card("sniper", 1)]
    assert key(D.check_hazard(b, "blue", card("sniper"), "red-2")) == "err-hazard-square"
    assert D.check_hazard(b, "blue", card("sniper"), "red-1") is None
    d = dice(4)  # 4 + 4 - 3 = 5: survives
    assert D.play_hazard(b, "blue", card("sniper"), "red-1", d) is False and used_up(d)
    assert D.play_hazard(b, "blue", card("sniper", 1), "red-1", dice(5)) is True  # 5 + 4 - 3 = 6
    assert b.blockers["red-1"].loc == DEAD


def test_hazard_strikes_where_the_mover_passed_until_another_blocker_moves():
    """11.iii: against a Blocker passing through the square, before the active player moves another
    Blocker: it is sent back there; a stop ends its move and its spent Command Points are lost."""
    b = board_of({"red-1": ("spugs", "curie:C5"), "red-2": ("spugs", "curie:H5")}, cp=4)
    b.hands["blue"] = [card("sniper", 0), card("sniper", 1)]
    start(b, "red-1")
    mv.walk(b, "red-1", sq(b, "curie:D5", "RS"))
    mv.walk(b, "red-1", sq(b, "curie:E5", "RS"))
    assert D.hazard_squares(b, card("sniper"), "red-1") == [sq(b, "curie:C5")]
    assert D.play_hazard(b, "blue", card("sniper"), "red-1", dice(1)) is False
    assert mv.where(b, "red-1") == sq(b, "curie:C5") and b.moving.blocker == "red-1"  # moves on
    start(b, "red-2")
    assert D.hazard_squares(b, card("sniper", 1), "red-1") == [sq(b, "curie:C5")]  # it stands there
    b2 = board_of({"red-1": ("spugs", "curie:C5"), "red-2": ("spugs", "curie:H5")}, cp=4)
    b2.hands["blue"] = [card("sniper")]
    start(b2, "red-1")
    mv.walk(b2, "red-1", sq(b2, "curie:D5"))
    start(b2, "red-2")
    assert key(D.check_hazard(b2, "blue", card("sniper"), "red-1")) == "err-hazard-square"


def test_a_hazard_never_sends_a_blocker_back_into_an_occupied_square():
    """11.iii: a Hazard card may strike a Blocker "che … stiano passando in un settore di quel tipo …
    costringendolo a tornare indietro"; 6.ii: "Un Blocker non può mai entrare nello Square occupato da
    un altro Blocker". A lift ride passes occupied squares (6.iii); the card may send the rider back only
    to a square of the shaft nobody else holds."""
    b = board_of({"red-1": ("juves", "curie:D1"), "red-2": ("juves", "curie:D5")}, cp=4)
    b.hands["blue"] = [card("lift-jammed")]
    start(b, "red-1")
    assert mv.check_move(b, "red-1", "lift", sq(b, "curie:D9", lift=True)) is None
    mv.move(b, "red-1", "lift", sq(b, "curie:D9"))
    places = D.hazard_squares(b, card("lift-jammed"), "red-1")
    assert sq(b, "curie:D6", lift=True) in places and sq(b, "curie:D4", lift=True) in places
    assert sq(b, "curie:D5", lift=True) not in places
    assert key(D.check_hazard(b, "blue", card("lift-jammed"), "red-1", sq(b, "curie:D5"))) == "err-hazard-square"


def test_hazard_stop_ends_the_move():
    """11.iii: a Blocker stopped by the card stays put; the Command Points spent are lost."""
    b = board_of({"red-1": ("juves", "curie:C5")}, cp=4)
    lift = next(loc for loc in (b.ring.loc("curie", f"{c}{lv}") for c in "ABCDEFGHIJKL" for lv in range(1, 9))
                if D.square_is(b, loc, "lift") and not b.square(loc).is_open)
    b = board_of({"red-1": ("juves", str(lift))}, cp=4)
    b.hands["blue"] = [card("lift-jammed")]
    start(b, "red-1")
    assert D.check_hazard(b, "blue", card("lift-jammed"), "red-1") is None
    D.play_hazard(b, "blue", card("lift-jammed"), "red-1", dice())
    assert "red-1" in b.moving.done and key(mv.check_activate(b, "red-1")) == "err-already-activated"
    assert b.command_points == 2


# -- 11.iv Attack cards --------------------------------------------------------------------------------

def test_attack_cards_change_the_next_roll_through_combat():
    """11.iv: played in Defensive Fire or Combat before the dice; the modifier reaches combat's roll as
    its bonus, once; an enemy's card can cancel a shot."""
    b = board(B("red-1", "citi-def", "curie:D5", "spit-gun"), B("blue-1", "juves", "curie:F5"))
    holding(b, "red", "steady-aim")
    assert D.check_attack(b, "red", card("steady-aim"), "blue-1") is not None  # not his Blocker
    D.play_attack(b, "red", card("steady-aim"), "red-1")
    gun = b.blockers["red-1"].carried[0]
    bonus = D.card_bonus(b, "shooting", "red-1", "blue-1")
    assert bonus == 2 and D.card_bonus(b, "shooting", "red-1", "blue-1") == 0
    d = dice(1)  # 1 + 4 + 2 - 2 = 5: a miss without Steady Aim would be 3
    shoot(b, "red-1", gun, d, target="blue-1", bonus=bonus)
    assert b.blockers["blue-1"].loc == "curie:F5"
    c = board(B("red-1", "citi-def", "curie:D5", "spit-gun"), B("blue-1", "juves", "curie:F5"))
    holding(c, "blue", "weapon-jams")
    assert key(D.check_attack(c, "blue", card("weapon-jams"), "blue-1")) == "err-card-shooter"
    D.play_attack(c, "blue", card("weapon-jams"), "red-1")
    assert c.blockers["red-1"].face_down
    e = board(B("red-1", "citi-def", "curie:D5"), stage="command")
    holding(e, "red", "steady-aim")
    assert key(D.check_attack(e, "red", card("steady-aim"), "red-1")) == "err-card-when"


def test_extra_attack_only_after_an_attack_and_ambush_in_defensive_fire():
    """11.iv: Berserk turns face up a Blocker that attacked this phase; Ambush (ours) lets one of the
    player's face-up Blockers fire defensively two squares away, along a line of fire (7.i, 8.iv)."""
    b = board(B("red-1", "citi-def", "curie:D5", "spit-gun"), B("blue-1", "juves", "curie:F5"))
    holding(b, "red", "berserk")
    assert key(D.check_attack(b, "red", card("berserk"), "red-1")) == "err-card-not-attacked"
    shoot(b, "red-1", b.blockers["red-1"].carried[0], dice(1), target="blue-1")
    assert D.check_attack(b, "red", card("berserk"), "red-1") is None
    D.play_attack(b, "red", card("berserk"), "red-1")
    assert not b.blockers["red-1"].face_down
    c = board(B("blue-1", "citi-def", "curie:C5", "spit-gun"), B("red-1", "juves", "curie:A5"), stage="defensive-fire")
    gun = c.blockers["blue-1"].carried[0]
    assert key(check_defensive_fire(c, "blue-1", "red-1", gun)) == "err-defensive-not-adjacent"
    holding(c, "blue", "ambush")
    assert key(D.check_attack(c, "blue", card("ambush"), "red-1")) == "err-card-not-yours"
    assert D.check_attack(c, "blue", card("ambush"), "blue-1") is None
    D.play_attack(c, "blue", card("ambush"), "blue-1")
    assert check_defensive_fire(c, "blue-1", "red-1", gun) is None  # C5 to A5 through the Open Air B5
    far = board(B("blue-1", "citi-def", "curie:C5", "spit-gun"), B("red-1", "juves", "curie:C8"), stage="defensive-fire")
    holding(far, "blue", "ambush")
    D.play_attack(far, "blue", card("ambush"), "blue-1")
    assert key(check_defensive_fire(far, "blue-1", "red-1", far.blockers["blue-1"].carried[0])) \
        == "err-defensive-not-adjacent"  # three squares: too far even so


# -- 12 the Final Phase --------------------------------------------------------------------------------

def test_last_mania_card_brings_the_judges():
    """10.ii, 12.i: the last Mania card drawn: discards and set-aside cards are shuffled into the Justice
    deck; no more Mania cards, no new Blockers."""
    b = holding(board_of({"red-1": ("juves", PILE)}, piles={"red": ("red-1",)}), "red", "block-pride")
    b.deck, b.discards, b.set_aside = [card("sniper")], [card("duck"), card("berserk")], [card("ambush")]
    d = dice(1, 1)
    D.draw(b, "red", d)
    assert used_up(d) and b.final and b.discards == [] and b.set_aside == []
    assert sorted(b.deck) == sorted([card("duck"), card("berserk"), card("ambush")])
    assert "note-judges-arrive" in notes(b)
    assert key(D.check_command(b, "red", card("block-pride"))) == "err-card-final"
    state = b.frozen()
    assert state.final and mv.check_new_blocker(Board(state), "red") is not None
    assert D.face(b, card("block-pride")).key == "judges-patrol"


def test_the_final_phase_has_one_source_new_blockers_refused_on_the_board_that_drew():
    """12.i: "Se il giocatore pesca l'ultima carta del mazzo, inizia la Fase Finale" and from then "i
    giocatori non possono più mettere in campo nuovi Blocker": the board on which the last card was drawn
    refuses a new Blocker at once (it used to ask the state the phase began with), as does its frozen
    state, and the card rules read the same flag."""
    b = holding(board_of({"red-1": ("juves", PILE)}, piles={"red": ("red-1",)}), "red", "block-rally")
    assert mv.check_new_blocker(b, "red") is None
    b.deck, b.discards = [card("sniper")], [card("duck")]
    D.draw(b, "red", dice(1, 1))
    assert b.final and not b.state.final  # the state is the phase's start; the board is the truth
    assert key(mv.check_new_blocker(b, "red")) == "err-final-no-new"
    assert key(D.check_command(b, "red", card("block-rally"))) == "err-card-final"
    assert key(mv.check_new_blocker(Board(b.frozen()), "red")) == "err-final-no-new"


def test_mega_mega_mania_makes_a_second_mania_deck_first():
    """Mega Mega-Mania: with five players the last Mania card makes a deck of 12 from the discards."""
    b = board_of(players=4)
    # the data has four block maps: the fifth seat is added to the state only, the deck needs no map
    b.state = replace(b.state, seats=b.state.seats + (Seat("white", "curie"),))
    b.deck, b.discards = [1], list(range(2, 30))
    D.draw(b, "red", dice(*ones(27)))
    assert not b.final and len(b.deck) == 12 and len(b.set_aside) == 28 - 12


def test_justice_once_at_the_start_of_the_command_phase_and_not_a_loss():
    """12.ii, 12.iii: exactly one Justice card, at the start of the Command Phase; the Blockers it removes
    go to the Justice box and are not defeat points."""
    b = board_of({"red-1": ("juves", "curie:C5"), "blue-1": ("futsie", "keaton:C5"),
                  "blue-2": ("juves", "keaton:D5")}, final=True)
    holding(b, "red", "psi-division", "iso-cubes")
    assert D.justice_due(b, "red") and not D.justice_due(b, "blue")
    assert key(D.check_justice(b, "red", card("iso-cubes"), targets=("blue-2",))) == "err-justice-targets"
    assert D.play_justice(b, "red", card("psi-division")) == ["blue-1"]
    assert b.blockers["blue-1"].loc == JUSTICE and not D.justice_due(b, "red")
    assert key(D.check_justice(b, "red", card("iso-cubes"), targets=("blue-2", "red-1"))) == "err-justice-once"
    assert defeat_points(b)["blue"] == 0
    c = board_of({"red-1": ("juves", "curie:C5")}, final=True)
    holding(c, "red", "iso-cubes")
    mv.roll_command_points(c, dice(1, 1))
    assert key(D.check_justice(c, "red", card("iso-cubes"), targets=("red-1",))) == "err-justice-start"
    d = board_of({"red-1": ("juves", "curie:C5")})
    holding(d, "red", "iso-cubes")
    assert key(D.check_justice(d, "red", card("iso-cubes"))) == "err-justice-not-final"


def test_justice_effects_and_the_fallback():
    """12.ii: squares, carried weapons, owners' choices; a card finding nobody removes the player's choice."""
    b = board_of({"red-1": ("juves", "curie:C5"), "blue-1": ("juves", "keaton:C5"),
                  "blue-2": ("citi-def", "keaton:D5"), "red-2": ("citi-def", "curie:D5")}, final=True)
    assert kind_of(b, "curie:C5") == "window" and kind_of(b, "keaton:C5") == "window"
    holding(b, "red", "spy-in-the-sky")
    assert D.play_justice(b, "red", card("spy-in-the-sky")) == ["blue-1", "red-1"]
    c = board_of({"red-1": ("juves", "curie:D5"), "blue-1": ("citi-def", "keaton:D5"),
                  "blue-2": ("spugs", "keaton:E5")}, final=True)
    holding(c, "red", "mass-arrests")
    assert D.play_justice(c, "red", card("mass-arrests"), choices={"blue": ("blue-1",)}) == ["red-1", "blue-1"]
    e = board_of({"red-1": ("juves", "curie:D5"), "blue-1": ("juves", "keaton:D5")}, final=True)
    holding(e, "red", "riot-squad")
    assert D.play_justice(e, "red", card("riot-squad"), targets=("blue-1",)) == ["blue-1"]
    assert "note-justice-fallback" in notes(e)


def kind_of(b: Board, name: str) -> str:
    return b.square(b.ring.loc(name)).type


def test_the_end_when_no_blocker_is_left_or_every_block_fell():
    """12.i, 12.iii, 10.iii: the game ends when the last Blocker is gone (Final Phase) or every block fell."""
    b = board_of({"red-1": ("juves", "curie:D5")}, final=True, piles={"red": ("red-9",)})
    assert D.game_over(b) is None
    D.arrest(b, "red-1", "test")
    assert D.game_over(b) == "cleared"
    c = board_of({"red-1": ("juves", PILE)}, piles={"red": ("red-1",)})
    assert D.game_over(c) is None
    c.fallen = set(c.ring.ids)
    assert D.game_over(c) == "fallen"


# -- what each seat sees -------------------------------------------------------------------------------

def test_no_note_for_one_seat_is_visible_to_another():
    """11.i: hands are secret, counts public: a note addressed to one seat is read by it alone; a seat
    sees its own hand only; everyone sees the counts."""
    b = board_of(players=3)
    D.deal(b, dice(*ones(54)))
    b.deck = b.deck[:2]
    D.draw(b, "red", dice())
    D.draw(b, "red", dice(*ones(60)))  # the last card: the Judges
    private = [n for n in b.notes if n.to is not None]
    assert private and all(len(n.to or ()) == 1 for n in private)
    for viewer in ("red", "blue", "green", None):
        seen = D.visible_notes(b.notes, viewer)
        assert all(n.to is None or n.to == (viewer,) for n in seen)
        for n in b.notes:
            if n.to is not None and viewer not in n.to:
                assert n not in seen
    for n in b.notes:
        if n.to is None:
            for seat, cards in b.hands.items():
                for c in cards:
                    assert D.face(b, c).name not in " ".join(v for _, v in n.args) or n.key == "note-card-played"
    state = b.frozen()
    assert D.hand(state, "red", "red") == state.seat("red").hand and D.hand(state, "red", "blue") is None
    assert D.counts(state)["hands"] == {"red": 3, "blue": 3, "green": 3}


def test_every_message_key_has_english_and_italian_texts():
    """Every error and note deck.py makes is in data/texts_cards.toml, [en] and [it], same placeholders."""
    data = tomllib.loads(resources.files("pbem.games.blockmania.data").joinpath("texts_cards.toml").read_text("utf-8"))
    src = Path(D.__file__).read_text("utf-8")
    own = {k for k in re.findall(r'"((?:err|note)-[a-z-]+)"', src)
           if k.startswith(("err-card", "err-hazard", "err-justice", "note-card", "note-hazard", "note-judges",
                            "note-justice"))}
    def keys(lang: str) -> set[str]:  # a counted text's key is its forms' stem: err-card-stations.one, .other
        return {k.rsplit(".", 1)[0] if k.endswith((".one", ".other")) else k for k in data[lang]}

    assert own <= keys("en") and own <= keys("it")
    for k in data["en"]:
        assert set(re.findall(r"{(\w+)}", data["en"][k])) == set(re.findall(r"{(\w+)}", data["it"][k])), k
