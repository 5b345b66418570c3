"""The Block Mania / Mega Mania rules engine: the `pbem.core.rules.Rules` protocol.

Phases (flow.py): ``setup-draw`` (the server), ``setup`` (each player in turn places his first four
Blockers, 3), then each player's turn of 4: ``command`` (one or more sheets: CONTINUE), ``defensive-fire``
(a decision phase for the other players who asked to choose, 7), ``combat``; the End Phase (10) is the
server's; ``over`` with the defeat points and the ranking (12.iii).  Two to four players (seats red,
blue, green, yellow; blocks dealt at random): two play with the Block Mania blocks, three or four with
Mega Mania's as well.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from pbem.core.dice import Dice
from pbem.core.i18n import Catalog, msg
from pbem.core.orders import checked_sheet
from pbem.core.rules import Chooser, Event, GameInfo, Outcome, Phase, Resolution, Sheet, View
from pbem.core.storage import DataclassStorage
from pbem.errors import RulesError, UserError
from pbem.games.blockmania import flow, play, report, texts
from pbem.games.blockmania.board import Board
from pbem.games.blockmania.deck import justice_due
from pbem.games.blockmania.orders import MAX_ITEMS, ORDER_TYPES, Justice, Pass, Place, parse_text
from pbem.games.blockmania.plan import PlanDice, Runner, default_places, fill_justice
from pbem.games.blockmania.state import CODEC_TYPES, SEAT_NAMES, VERSION, Seat, State
from pbem.games.blockmania.view import build_view
from pbem.games.common.engine import filed_orders

SEATS = SEAT_NAMES[:4]
#: 3, 11.i: the shuffles of the deck, the piles and the pools would show hands, piles and draws: their
#: values stay sealed in players' mail until the seed is revealed (the purposes begin with "shuffle ").
SECRET_ROLLS = ("shuffle ",)
DATA = "pbem.games.blockmania.data"


def catalog() -> Catalog:
    out = Catalog.from_package(DATA, "texts.toml")
    for name in ("texts_combat.toml", "texts_cards.toml", "texts_engine.toml", "texts_report.toml",
                 "texts_purposes.toml"):
        out = out.merged(Catalog.from_package(DATA, name))
    return out


class BlockManiaRules(DataclassStorage):
    """Block Mania and Mega Mania (Games Workshop 1987), see docs/games/blockmania.md."""

    info = GameInfo(
        slug="blockmania",
        title="Block Mania",
        version=VERSION,
        seats=SEATS,
        min_seats=2,
        max_seats=4,
        options={},
        id_prefix="b",
        secret_rolls=SECRET_ROLLS,
    )

    def __init__(self) -> None:
        super().__init__(State, CODEC_TYPES, ORDER_TYPES)
        self.catalog = catalog()

    # -- game flow ---------------------------------------------------------------------------------
    def new_game(self, seats: Sequence[str], options: Mapping[str, str]) -> State:
        names = [s.strip().lower() for s in seats]
        if not 2 <= len(names) <= 4 or len(set(names)) != len(names) or set(names) - set(SEATS):
            raise UserError(f"Block Mania has 2 to 4 seats among {', '.join(SEATS)}")
        if options:
            raise UserError(f"unknown option {sorted(options)[0]!r} (Block Mania has no options)")
        ordered = [s for s in SEATS if s in names]
        return State(VERSION, tuple(Seat(n, "") for n in ordered), stage="setup-draw")

    def phase(self, state: State) -> Phase:
        stage = state.stage
        return Phase(turn=state.turn, name=stage, awaiting=flow.awaiting(state),
                     decision=stage in ("defensive-fire", "hazards"), label=msg(f"phase-{stage}"))

    def parse_orders(self, state: State, seat: str, text: str) -> Sheet:
        return checked_sheet(seat, text, seats=[s.name for s in state.seats], awaiting=flow.awaiting(state),
                             phase=msg(f"phase-{state.stage}"), parse=parse_text,
                             plan=lambda items: Runner(Board(state), seat, PlanDice(), planning=True).run(items),
                             max_items=MAX_ITEMS, empty=Pass())

    def default_orders(self, state: State, seat: str) -> Sheet:
        """Set-up: the Blockers on the free squares from the lowest address; Command Phase: nothing but the
        Justice card due in the Final Phase (its default targets); Defensive Fire: the nearest target;
        Combat: only the close combats the rules make mandatory."""
        if seat not in flow.awaiting(state):
            return Sheet(seat, (Pass(),))
        board = Board(state)
        if state.stage == "setup":
            return Sheet(seat, tuple(Place(b, str(loc)) for b, loc in default_places(board, seat)) or (Pass(),))
        if state.stage == "command" and justice_due(board, seat):
            return Sheet(seat, (fill_justice(board, seat, Justice(board.hands[seat][0])),))
        return Sheet(seat, (Pass(),))

    def resolve(self, state: State, sheets: Mapping[str, Sheet], dice: Dice) -> Resolution:
        if state.stage == "over":
            raise RulesError("the game is over")
        orders = filed_orders(sheets, flow.awaiting(state), lambda seat: self.default_orders(state, seat))
        new = flow.play(state, orders, dice)
        events = [Event(state.stage, {"turn": state.turn, "seat": state.active_seat.name if state.seats else ""})]
        if new.result is not None:
            events.append(Event("game-over", {"ranking": list(new.result.ranking),
                                              "defeat": dict(new.result.defeat)}))
        return Resolution(new, tuple(events))

    def outcome(self, state: State) -> Outcome | None:
        """12.iii: the fewest defeat points win; equal lowest totals share the win; all equal is a draw."""
        r = state.result
        if r is None:
            return None
        points = dict(r.defeat)
        low = min(points.values())
        winners = tuple(s for s in r.ranking if points[s] == low)
        ranking = ", ".join(f"{s} {points[s]}" for s in r.ranking)
        if len(winners) == len(points):
            return Outcome("draw", (), "defeat-points", msg("outcome-draw", ranking=ranking))
        return Outcome("win", winners, "defeat-points", msg("outcome-win", winners=", ".join(winners),
                                                              ranking=ranking))

    # -- what players see ----------------------------------------------------------------------------
    def view(self, state: State, viewer: str | None) -> View:
        data = build_view(state, viewer)
        data["awaiting"] = list(flow.awaiting(state))
        return data

    def describe(self, view: View, lang: str) -> str:
        return report.describe(self.catalog, view, lang)

    def render(self, view: View) -> str:
        from pbem.games.blockmania.render import render_svg

        return str(render_svg(view))

    def help(self, lang: str) -> str:
        return texts.help_text(self.catalog, lang)

    def template(self, state: State, seat: str, lang: str) -> str:
        return texts.template_text(self.catalog, state, seat, lang, flow.awaiting(state))

    def random_orders(self, state: State, seat: str, pick: Chooser) -> str:
        return play.random_text(state, seat, pick)


__all__ = ["BlockManiaRules", "SEATS"]
