"""The dice list names the number each draw from the bag took, beside the die that chose it
(issue 19.6; rules.toml and the rulebook's "Preparazione": the party seats and the 12 indifferent
are drawn from the bag of 90; a recruit is replaced by a number drawn from the bag)."""

from __future__ import annotations

from pbem.core.rules import roll_notes
from pbem.games.arditi import RULES
from tests.games.arditi.helpers import LoopDice


def test_setup_draws_are_listed_with_the_number_they_took() -> None:
    state = RULES.new_game(["red", "blue", "green", "yellow"], {})
    dice = LoopDice([50, 78, 8, 9, 20, 34, 3, 52, 30, 57, 1, 70, 16, 48, 64, 49, 6])
    after = RULES.resolve(state, {}, dice).state
    view = RULES.view(after, "blue")
    notes = roll_notes(RULES, view, dice.record, "en")
    # ranks among the numbers left: 50 of 1..90 is 50; 78 of the 89 left is 79; 8 is 8; 9 (with
    # 8 gone) is 10 - as the set-up says: Red 50, Blue 79, Green 8, Yellow 10
    assert [notes[r.counter] for r in dice.record[:4]] == [f"number {n} drawn" for n in (50, 79, 8, 10)]
    assert dict(view["setup"]["homes"]) == {"red": 50, "blue": 79, "green": 8, "yellow": 10}
    assert len(notes) == 16  # four party seats and twelve indifferent; the die for red has no note
    assert dice.record[16].counter not in notes
    assert roll_notes(RULES, view, dice.record, "it")[0] == "estratto il numero 50"
    drawn = [int(notes[r.counter].split()[1]) for r in dice.record[4:16]]
    assert drawn == list(view["setup"]["indifferent"])
