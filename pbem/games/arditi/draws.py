"""The numbers drawn from the bag, beside the dice that chose them (issue 19.6).

A draw is a roll over the numbers left in the bag (`flow.draw`): the die gives a rank, not the
number. The dice list would say "party seat of green: d88 = 8" while the set-up says Green 37,
so each draw roll is paired with the number the view records for it: the set-up's party seats
and indifferent, the recruits' replacements, the police's draws, each in the order drawn.
"""

from __future__ import annotations

from typing import Any, Iterable, Mapping

from pbem.core.i18n import Message, msg

PREFIX = "draw from the bag (rank among the numbers left): "


def _drawn(view: Mapping[str, Any]) -> dict[str, list[int]]:
    setup = view.get("setup") or {}
    last = view.get("last_move") or {}
    police = view.get("police") or {}
    return {
        "party seat of ": [n for _seat, n in setup.get("homes", [])],
        "indifferent": list(setup.get("indifferent", [])),
        "a new indifferent after ": [d["number"] for d in last.get("refills", [])],
        "police ": [a["number"] for a in police.get("acts", []) if a.get("number") is not None],
    }


def roll_notes(view: Mapping[str, Any], rolls: Iterable[Any]) -> dict[int, Message]:
    """Counter of each draw roll -> "drew 37"; rolls the view has no number for get nothing."""
    drawn = _drawn(view)
    taken = {kind: 0 for kind in drawn}
    out: dict[int, Message] = {}
    for roll in rolls:
        purpose = str(roll.purpose)
        if not purpose.startswith(PREFIX):
            continue
        what = purpose[len(PREFIX):]
        kind = next((k for k in drawn if what.startswith(k)), None)
        if kind is None or taken[kind] >= len(drawn[kind]):
            continue
        out[roll.counter] = msg("roll-drew", number=drawn[kind][taken[kind]])
        taken[kind] += 1
    return out
