"""Duel: a tiny two-seat game for platform tests (not shipped as a product game).

Every turn both seats secretly PLAY 1, 2 or 3; the server rolls a d6 for each;
the higher total scores a point; three points win. A tied round opens a decision
(architecture 2.6) for the first seat: ROLL (a d6 each, the higher scores) or
SPLIT (nobody scores, the default). It exercises sealed phases, dice every turn,
default orders (PLAY 1), decisions with their short deadline, and an end.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from typing import Any, Mapping, Sequence

from pbem.core.codec import Codec, encode
from pbem.core.dice import Dice
from pbem.core.i18n import Catalog, msg
from pbem.core.rules import Chooser, Diagnostic, Event, GameInfo, Outcome, Phase, Resolution, Sheet, View


@dataclass(frozen=True)
class Play:
    value: int

    def canonical(self) -> str:
        return f"PLAY {self.value}"


@dataclass(frozen=True)
class Choice:
    word: str  # ROLL | SPLIT

    def canonical(self) -> str:
        return self.word


@dataclass(frozen=True)
class DuelState:
    seats: tuple[str, ...]
    turn: int = 1
    scores: tuple[int, ...] = (0, 0)
    last: tuple[tuple[str, int, int], ...] = ()  # seat, play, die
    tied: bool = False  # a decision is open


CATALOG = Catalog({"en": {"duel.expected": "expected PLAY 1, PLAY 2 or PLAY 3", "duel.won": "{seat} wins"},
                   "it": {"duel.expected": "atteso PLAY 1, PLAY 2 o PLAY 3", "duel.won": "vince {seat}"}})
_CODEC = Codec([Play, Choice, DuelState])
_CHOICE = re.compile(r"^\s*(ROLL|SPLIT)\s*$", re.IGNORECASE)
_LINE = re.compile(r"^\s*(?:PLAY|GIOCA)\s+([123])\s*$", re.IGNORECASE)


class DuelRules:
    info = GameInfo(slug="duel", title="Duel", version="1", seats=("red", "blue"), min_seats=2, max_seats=2,
                    id_prefix="d")
    catalog = CATALOG

    def new_game(self, seats: Sequence[str], options: Mapping[str, str]) -> DuelState:
        return DuelState(tuple(seats))

    def phase(self, state: DuelState) -> Phase:
        if self.outcome(state):
            return Phase(state.turn, "over", ())
        if state.tied:
            return Phase(state.turn, "tiebreak", state.seats[:1], decision=True)
        return Phase(state.turn, "play", state.seats, sealed=True)

    def parse_orders(self, state: DuelState, seat: str, text: str) -> Sheet:
        if state.tied:
            words = [ln.strip() for ln in text.splitlines() if ln.strip()]
            found = [_CHOICE.match(w) for w in words]
            if len(words) == 1 and found[0]:
                return Sheet(seat, (Choice(found[0].group(1).upper()),))
            return Sheet(seat, (), (Diagnostic(0, text.strip()[:40], msg("duel.expected")),))
        orders: list[Play] = []
        diags: list[Diagnostic] = []
        for n, line in enumerate(text.splitlines(), 1):
            if not line.strip() or line.strip().startswith("#"):
                continue
            m = _LINE.match(line)
            if m is None:
                diags.append(Diagnostic(n, line.strip(), msg("duel.expected")))
            else:
                orders.append(Play(int(m.group(1))))
        if len(orders) > 1:
            diags.append(Diagnostic(0, "", msg("duel.expected")))
        if not orders and not diags:
            diags.append(Diagnostic(0, "", msg("duel.expected")))
        return Sheet(seat, tuple(orders), tuple(diags))

    def default_orders(self, state: DuelState, seat: str) -> Sheet:
        return Sheet(seat, (Choice("SPLIT"),)) if state.tied else Sheet(seat, (Play(1),))

    def resolve(self, state: DuelState, sheets: Mapping[str, Sheet], dice: Dice) -> Resolution:
        if state.tied:
            choice = sheets[state.seats[0]].orders[0].word
            scores = list(state.scores)
            if choice == "ROLL":
                a, b = dice.roll(6, f"{state.seats[0]} tiebreak"), dice.roll(6, f"{state.seats[1]} tiebreak")
                if a != b:
                    scores[0 if a > b else 1] += 1
            return Resolution(replace(state, tied=False, turn=state.turn + 1, scores=tuple(scores)),
                              (Event("tiebreak", {"choice": choice}),))
        totals = []
        last = []
        for seat in state.seats:
            play = sheets[seat].orders[0].value
            die = dice.roll(6, f"{seat} die")
            totals.append(play + die)
            last.append((seat, play, die))
        scores = list(state.scores)
        if totals[0] != totals[1]:
            scores[0 if totals[0] > totals[1] else 1] += 1
            new = replace(state, turn=state.turn + 1, scores=tuple(scores), last=tuple(last))
        else:
            new = replace(state, last=tuple(last), tied=True)
        return Resolution(new, (Event("round", {"totals": totals}),))

    def outcome(self, state: DuelState) -> Outcome | None:
        for seat, score in zip(state.seats, state.scores):
            if score >= 3:
                return Outcome("win", (seat,), "points", msg("duel.won", seat=seat))
        return None

    def view(self, state: DuelState, viewer: str | None) -> View:
        return {"game": "duel", "turn": state.turn, "viewer": viewer, "scores": dict(zip(state.seats, state.scores)),
                "last": [list(x) for x in state.last]}

    def describe(self, view: View, lang: str) -> str:
        last = ", ".join(f"{s} played {p} and rolled {d}" for s, p, d in view["last"]) or "no round yet"
        return f"Duel, turn {view['turn']}. Scores: {view['scores']}. Last round: {last}."

    def render(self, view: View) -> str:
        return ('<svg xmlns="http://www.w3.org/2000/svg" width="200" height="100"><rect width="200" height="100" '
                f'fill="#eee"/><text x="10" y="50" font-size="14">turn {view["turn"]}</text></svg>')

    def help(self, lang: str) -> str:
        return "Orders: PLAY 1, PLAY 2 or PLAY 3."

    def template(self, state: DuelState, seat: str, lang: str) -> str:
        return "PLAY 1 | PLAY 2 | PLAY 3"

    def random_orders(self, state: DuelState, seat: str, pick: Chooser) -> str:
        if state.tied:
            return ("ROLL", "SPLIT")[pick(2)]
        return f"PLAY {pick(3) + 1}"

    def encode_state(self, state: DuelState) -> Any:
        return encode(state)

    def decode_state(self, data: Any) -> DuelState:
        return _CODEC.decode(data)  # type: ignore[no-any-return]

    def encode_orders(self, orders: Sequence[Any]) -> Any:
        return [encode(o) for o in orders]

    def decode_orders(self, data: Any) -> tuple[Any, ...]:
        return tuple(_CODEC.decode(d) for d in data)


RULES = DuelRules()
