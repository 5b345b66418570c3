"""The other players inside the active player's turn, by mail (rulebook 6.iii, 7, 11.iii, 11.iv, 12.ii):
hazard cards asked for in a decision phase or kept for their trigger, Duck! kept for a shot, defensive
fire asked for, the Judges' marker. Red (Marie Curie Block) is the active player, blue (Buster Keaton)
the other; every case goes through the engine (`RULES`): parse, resolve, phase."""

from __future__ import annotations

from dataclasses import replace

from pbem.core.rules import Sheet
from pbem.games.blockmania import RULES
from pbem.games.blockmania.board import Board
from pbem.games.blockmania.cards import DECK
from pbem.games.blockmania.state import DEAD, Standing, State
from tests.games.blockmania.helpers import dice, position


def card(face_key: str, nth: int = 0) -> int:
    return [c.number for c in DECK.cards if face_key in (c.mania.key, c.justice.key)][nth]


def with_hand(state: State, seat: str, *cards: int) -> State:
    return replace(state, seats=tuple(replace(s, hand=cards) if s.name == seat else s for s in state.seats))


def standing(state: State, seat: str, **changes: object) -> State:
    names = [s.name for s in state.seats]
    table = [Standing() for _ in names]
    for i, st in enumerate(state.standing):
        table[i] = st
    table[names.index(seat)] = replace(table[names.index(seat)], **changes)  # type: ignore[arg-type]
    return replace(state, standing=tuple(table))


def sheet(state: State, seat: str, *lines: str) -> Sheet:
    s = RULES.parse_orders(state, seat, "\n".join(lines))
    assert s.ok, s.diagnostics
    return s


def loc(state: State, bid: str) -> str:
    return next(b.loc for b in state.blockers if b.id == bid)


def note_keys(state: State) -> list[str]:
    return [n.key for p in state.log for n in p.notes]


def moving_pair() -> State:
    """red-1 (Spugs) in the Window square curie:C5, red-2 (Spugs) in curie:H5; 4 Command Points."""
    return position({"red-1": ("spugs", "curie:C5"), "red-2": ("spugs", "curie:H5")}, cp=4)


def test_a_hazard_asked_for_pauses_the_command_phase_and_it_goes_on_after_the_answer():
    """11.iii: a Hazard card is played at a Blocker that moved through a square of its kind before the
    active player moves another; a player who asked (HAZARDS ASK) gets a decision phase, the Blocker is
    sent back to the square struck, and the rest of the active player's sheet is carried out after."""
    state = standing(with_hand(moving_pair(), "blue", card("sniper")), "blue", hazards_ask=True)
    orders = sheet(state, "red", "MOVE red-1 D5", "MOVE red-2 G5")
    paused = RULES.resolve(state, {"red": orders}, dice()).state
    phase = RULES.phase(paused)
    assert paused.stage == "hazards" and phase.awaiting == ("blue",) and phase.decision
    assert paused.mover == "red-1" and paused.pending == ("MOVE red-2 curie:G5",)
    assert loc(paused, "red-1") == "curie:D5" and loc(paused, "red-2") == "curie:H5"
    assert "note-hazards-asked" in note_keys(paused)
    # blue's template names the card; the sheet defaults to the Blocker that moved.
    assert str(card("sniper")) in RULES.template(paused, "blue", "en")
    answer = sheet(paused, "blue", f"PLAY {card('sniper')}")
    assert answer.canonical() == f"PLAY {card('sniper')} ON red-1"
    done = RULES.resolve(paused, {"blue": answer}, dice(1)).state  # 1 + 4 - 1 = 4: it survives
    assert loc(done, "red-1") == "curie:C5"  # sent back to the Window square struck
    assert loc(done, "red-2") == "curie:G5"  # the rest of red's sheet was carried out
    assert done.stage == "combat" and card("sniper") not in done.seat("blue").hand
    assert {"note-hazard-back", "note-hazard-attack"} <= set(note_keys(done))


def test_nobody_asked_nothing_waits_and_a_missed_answer_plays_no_card():
    """11.iii over mail: without HAZARDS ASK the phase never stops; a decision unanswered (the deadline
    passed) plays no card: the documented default."""
    state = with_hand(moving_pair(), "blue", card("sniper"))
    done = RULES.resolve(state, {"red": sheet(state, "red", "MOVE red-1 D5", "MOVE red-2 G5")}, dice()).state
    assert done.stage == "combat" and loc(done, "red-2") == "curie:G5"
    asked = standing(state, "blue", hazards_ask=True)
    paused = RULES.resolve(asked, {"red": sheet(asked, "red", "MOVE red-1 D5", "MOVE red-2 G5")}, dice()).state
    default = RULES.default_orders(paused, "blue")
    after = RULES.resolve(paused, {"blue": default}, dice()).state
    assert loc(after, "red-1") == "curie:D5" and loc(after, "red-2") == "curie:G5"
    assert card("sniper") in after.seat("blue").hand


def test_a_kept_hazard_strikes_by_itself():
    """11.iii with a standing instruction (KEEP): the card is played at the first enemy Blocker that moved
    through a square of its kind, before the next Blocker moves; no decision phase."""
    state = standing(with_hand(moving_pair(), "blue", card("sniper")), "blue", keep=(card("sniper"),))
    done = RULES.resolve(state, {"red": sheet(state, "red", "MOVE red-1 D5", "MOVE red-2 G5")}, dice(6)).state
    assert done.stage == "combat"
    assert loc(done, "red-1") == DEAD  # 6 + 4 - 1 >= 6
    assert loc(done, "red-2") == "curie:G5" and card("sniper") not in done.seat("blue").hand


def test_a_kept_hazard_still_strikes_after_a_sheet_ends_with_continue():
    """11.iii: the card may be played until the active player moves another Blocker; a sheet ending in
    CONTINUE does not close that window: the squares passed are remembered for the next sheet."""
    state = standing(with_hand(moving_pair(), "blue", card("sniper")), "blue", keep=(card("sniper"),))
    first = RULES.resolve(state, {"red": sheet(state, "red", "MOVE red-1 D5", "CONTINUE")}, dice()).state
    assert first.stage == "command" and first.mover == "red-1" and "curie:C5" in first.passed
    done = RULES.resolve(first, {"red": sheet(first, "red", "MOVE red-2 G5")}, dice(6)).state
    assert loc(done, "red-1") == DEAD and loc(done, "red-2") == "curie:G5"


def test_the_justice_card_is_played_first_wherever_the_sheet_writes_it():
    """12.ii: exactly one Justice card at the start of the Command Phase: a JUSTICE line written after
    other orders is carried out first, and the echo shows it first."""
    state = position({"red-1": ("juves", "curie:D5"), "blue-1": ("juves", "curie:G5"),
                      "blue-2": ("juves", "curie:H5")}, cp=6, final=True)
    sweep = card("iso-cubes")  # two Blockers of the player's choice
    state = with_hand(state, "red", sweep)
    orders = sheet(state, "red", "MOVE red-1 D6", f"JUSTICE {sweep} ON blue-1 blue-2")
    assert orders.canonical().splitlines()[0].startswith(f"JUSTICE {sweep}")
    done = RULES.resolve(state, {"red": orders}, dice()).state
    assert loc(done, "blue-1") == loc(done, "blue-2") == "justice" and loc(done, "red-1") == "curie:D6"


def test_keep_takes_only_the_cards_with_a_trigger():
    """11.iii, 11.iv: KEEP is for Hazard cards and the Attack cards that answer a shot or a close combat;
    a Command card has no trigger and is refused, naming it."""
    state = with_hand(moving_pair(), "red", card("block-pride"), card("sniper"))
    bad = RULES.parse_orders(state, "red", f"KEEP {card('block-pride')}")
    assert not bad.ok and bad.diagnostics[0].message.key == "err-keep-card"
    good = RULES.parse_orders(state, "red", f"KEEP {card('sniper')}\nPASS")
    assert good.ok
    after = RULES.resolve(state, {"red": good}, dice()).state
    assert after.standing[0].keep == (card("sniper"),)


def test_duck_kept_answers_the_first_shot_at_the_keepers_blocker():
    """11.iv: an Attack card changing the dice is played before the roll; kept (KEEP), Duck! is played by
    itself at the first enemy shot at one of the keeper's Blockers: -3 to that roll."""
    state = position({"red-1": ("citi-def", "curie:C5"), "blue-1": ("juves", "curie:D5")},
                     carried={"red-1": ("spit-gun",)}, stage="combat")
    state = standing(with_hand(state, "blue", card("duck")), "blue", keep=(card("duck"),))
    orders = sheet(state, "red", "SHOOT red-1 AT blue-1")
    assert orders.canonical() == "SHOOT red-1 AT blue-1 WITH spit-gun-1"
    # 5 + 3 - 3 (Duck!) - 2 = 3 < 6: blue-1 survives; without the card 5 + 3 - 2 = 6 kills (8.v).
    done = RULES.resolve(state, {"red": orders}, dice(5, 3, 3)).state  # then blue's Command Points
    assert loc(done, "blue-1") == "curie:D5" and card("duck") not in done.seat("blue").hand
    plain = with_hand(state, "blue")
    dead = RULES.resolve(plain, {"red": sheet(plain, "red", "SHOOT red-1 AT blue-1")}, dice(5, 3, 3)).state
    assert loc(dead, "blue-1") == DEAD


def test_defensive_fire_asked_for_is_a_decision_phase_with_the_nearest_as_default():
    """7: the other players' face-up Blockers beside the active player's may fire; over mail a player may
    ask to choose (DEFENSIVE FIRE ASK): a decision phase awaits him; unanswered, the nearest target."""
    state = position({"red-1": ("juves", "curie:D5"), "blue-1": ("citi-def", "curie:E5")}, cp=0,
                     carried={"blue-1": ("spit-gun",)})
    asked = standing(state, "blue", defensive_fire="ask")
    after = RULES.resolve(asked, {"red": sheet(asked, "red", "PASS")}, dice()).state
    phase = RULES.phase(after)
    assert after.stage == "defensive-fire" and phase.awaiting == ("blue",) and phase.decision
    held = RULES.resolve(after, {"blue": sheet(after, "blue", "HOLD blue-1", "INTERCEPT OFF")}, dice()).state
    assert held.stage == "combat" and loc(held, "red-1") == "curie:D5"
    assert not held.standing[1].intercept_lifts  # a standing instruction in the answer is kept too
    assert not next(b for b in held.blockers if b.id == "blue-1").face_down
    fired = RULES.resolve(after, {"blue": RULES.default_orders(after, "blue")}, dice(6, 3, 3)).state
    assert loc(fired, "red-1") == DEAD  # 6 + 3 - 2 >= 6: the default fired at the nearest
    unasked = RULES.resolve(state, {"red": sheet(state, "red", "PASS")}, dice(6, 3, 3)).state
    assert loc(unasked, "red-1") == DEAD  # by the standing policy, at once
    assert unasked.stage == "command" and unasked.active_seat.name == "blue"  # red had nobody left to fight


def test_the_judges_marker_keeps_everyone_out():
    """12.ii (Judges' Patrol): the Blockers in the square and beside it are removed and nobody enters the
    square afterwards."""
    state = position({"red-1": ("juves", "curie:F5"), "blue-1": ("juves", "curie:G5"),
                      "red-2": ("juves", "curie:D3")}, cp=6, final=True)
    patrol = card("judges-patrol")
    state = with_hand(state, "red", patrol)
    orders = sheet(state, "red", f"JUSTICE {patrol} AT curie:G5", "MOVE red-2 D4 D5 E5")
    assert orders.ok
    done = RULES.resolve(state, {"red": orders}, dice()).state
    assert "curie:G5" in done.judges and loc(done, "blue-1") != "curie:G5" and loc(done, "red-1") != "curie:F5"
    assert loc(done, "red-2") == "curie:E5"
    blocked = replace(done, stage="command", command_points=8, moving=None, done=(), final=False,
                      blockers=tuple(replace(b, activated=False) for b in done.blockers))
    refused = RULES.parse_orders(blocked, "red", "MOVE red-2 F5 G5")
    assert not refused.ok and refused.diagnostics[0].message.key == "err-unreachable"
    assert RULES.parse_orders(blocked, "red", "MOVE red-2 F5").ok
