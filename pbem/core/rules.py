"""The protocol every game's rules engine implements.

An engine is pure and synchronous: it takes a state, the seats' orders and a dice
object, and returns the new state and the events.  It never touches the database,
the mail, the clock or ``random``; all chance goes through `Dice`.  A decision
inside a turn (architecture 2.6) is simply a phase whose ``decision`` flag is set:
the service mails the question to the awaited seat with a short deadline.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Mapping, Protocol, Sequence, runtime_checkable

from pbem.core.dice import Dice
from pbem.core.i18n import Catalog, Message

#: A view is plain JSON data: what one seat (or a spectator, ``None``) may see.
View = dict[str, Any]

#: ``pick(n)`` returns an index in ``range(n)``; the conformance suite passes a seeded
#: one, so that engines can offer random legal orders without importing ``random``.
Chooser = Callable[[int], int]


@runtime_checkable
class Order(Protocol):
    """A typed order; ``canonical()`` is the one-line text that parses back to it."""

    def canonical(self) -> str: ...


@dataclass(frozen=True)
class Diagnostic:
    """One finding about one line of an order text (line 0: the sheet as a whole)."""

    line: int
    text: str
    message: Message
    suggestion: Message | None = None
    severity: str = "error"  # "error" refuses the sheet, "warning" is only reported

    @property
    def is_error(self) -> bool:
        return self.severity == "error"


@dataclass(frozen=True)
class Sheet:
    """A seat's parsed orders for one phase, with what the parser found."""

    seat: str
    orders: tuple[Any, ...] = ()
    diagnostics: tuple[Diagnostic, ...] = ()

    @property
    def ok(self) -> bool:
        return not any(d.is_error for d in self.diagnostics)

    def canonical(self) -> str:
        """The normalised orders, one per line (the text echoed to the player)."""
        return "\n".join(o.canonical() for o in self.orders)


@dataclass(frozen=True)
class Phase:
    """Who owes orders now.

    ``turn`` is the number players write after ``TURN``; ``sealed`` phases keep each
    seat's orders hidden from the others until the phase resolves.
    """

    turn: int
    name: str
    awaiting: tuple[str, ...]
    sealed: bool = False
    decision: bool = False
    label: Message | None = None


@dataclass(frozen=True)
class Event:
    """Something that happened; ``to`` limits it to some seats (``None``: everyone)."""

    kind: str
    data: Mapping[str, Any] = field(default_factory=dict)
    to: tuple[str, ...] | None = None

    def visible_to(self, seat: str | None) -> bool:
        return self.to is None or (seat is not None and seat in self.to)


@dataclass(frozen=True)
class Resolution:
    """The result of resolving one phase."""

    state: Any
    events: tuple[Event, ...] = ()


@dataclass(frozen=True)
class Outcome:
    """How a finished game ended. ``winners`` is empty for a draw."""

    result: str  # "win" | "draw"
    winners: tuple[str, ...]
    reason: str  # a machine key, e.g. "arsenals", "annihilation", "agreement"
    summary: Message


@dataclass(frozen=True)
class OptionSpec:
    """A game option settable with ``--option KEY=VALUE``."""

    default: str
    description: str
    choices: tuple[str, ...] = ()


@dataclass(frozen=True)
class GameInfo:
    slug: str  # "kriegspiel"; also the demo folder name
    title: str
    version: str  # rules version, stored with every game
    seats: tuple[str, ...]  # default seat names, in seat order
    min_seats: int
    max_seats: int
    options: Mapping[str, OptionSpec] = field(default_factory=dict)
    id_prefix: str = "g"  # game ids look like k42
    #: Sealed phases hide the other seats' units too (Kriegspiel's deployment); otherwise a
    #: sealed phase hides only the orders filed, and every seat sees the same position.
    sealed_hides_units: bool = False
    #: Purposes (their beginnings) of the rolls whose values would show hidden state - a shuffle of
    #: a deck or a pile: players' mail lists them with their value sealed until the seed is revealed.
    secret_rolls: tuple[str, ...] = ()


class Rules(Protocol):
    """What the service needs from a game. See the module docstring."""

    info: GameInfo
    catalog: Catalog

    def new_game(self, seats: Sequence[str], options: Mapping[str, str]) -> Any:
        """The initial state. Chance at set-up belongs to the first resolution."""
        ...

    def phase(self, state: Any) -> Phase: ...

    def parse_orders(self, state: Any, seat: str, text: str) -> Sheet:
        """Never raises on any text: problems are diagnostics."""
        ...

    def default_orders(self, state: Any, seat: str) -> Sheet:
        """The orders applied for a seat that missed its deadline (documented per game)."""
        ...

    def resolve(self, state: Any, sheets: Mapping[str, Sheet], dice: Dice) -> Resolution:
        """Apply the awaited seats' sheets. Sheets were produced by ``parse_orders``."""
        ...

    def outcome(self, state: Any) -> Outcome | None: ...

    def view(self, state: Any, viewer: str | None) -> View:
        """Everything ``viewer`` may see; ``None`` is a spectator. JSON data only.

        An engine with sealed phases may also offer ``preview(state, seat, orders) -> View``:
        the seat's view with its own filed orders applied (the others' stay hidden), so that a
        player sees their sealed deployment on the map; `seat_view` uses it when present."""
        ...

    def describe(self, view: View, lang: str) -> str:
        """The turn report body for this view."""
        ...

    def render(self, view: View) -> str:
        """The map of this view as an SVG document."""
        ...

    def help(self, lang: str) -> str:
        """Rules summary and order syntax (welcome mail, HELP).

        An engine may also offer ``help_topic(topic, lang) -> str | None`` for ``HELP <topic>``
        (Corteo's street guide: ``HELP streets``); the service uses it when present."""
        ...

    def template(self, state: Any, seat: str, lang: str) -> str:
        """What this seat may order now (the ORDERS command)."""
        ...

    def random_orders(self, state: Any, seat: str, pick: Chooser) -> str:
        """A random legal order text for ``seat`` (conformance playouts)."""
        ...

    def encode_state(self, state: Any) -> Any: ...

    def decode_state(self, data: Any) -> Any: ...

    def encode_orders(self, orders: Sequence[Any]) -> Any: ...

    def decode_orders(self, data: Any) -> tuple[Any, ...]: ...


def seat_view(rules: Any, state: Any, seat: str, orders: Sequence[Any] = ()) -> View:
    """What ``seat`` sees now: in a sealed phase, with its own orders on file applied where the
    engine can show them (the optional ``preview`` hook), else the plain view."""
    hook = getattr(rules, "preview", None)
    if orders and hook is not None and rules.phase(state).sealed:
        view: View = hook(state, seat, tuple(orders))
        return view
    return rules.view(state, seat)


def seat_label(rules: Any, seat: str, lang: str) -> str:
    """A seat as players read it in ``lang``: the game's ``seat-<name>`` (or ``side-<name>``) text ("Sud"), with the
    name the order block uses in brackets when it reads differently ("Sud (south)")."""
    catalog = getattr(rules, "catalog", None)
    if catalog is None:
        return seat
    key = next((k for k in (f"seat-{seat}", f"side-{seat}") if catalog.has(k, "en")), None)
    if key is None:
        return seat
    label = str(catalog.text(Message(key), lang))
    return label if label.casefold() == seat.casefold() else f"{label} ({seat})"


def echo_orders(rules: Any, canonical: str, written: str, lang: str = "en") -> str:
    """The accepted orders echoed in the language the player wrote them (``MUOVI`` stays ``MUOVI``;
    words both languages share read in the reader's ``lang``), from the keywords of the game's data
    folder; the stored text stays the canonical one."""
    from pbem.core.orders import echo, keyword_pairs

    package = type(rules).__module__.rsplit(".", 1)[0] + ".data"
    try:
        pairs = keyword_pairs(package)
    except (ModuleNotFoundError, FileNotFoundError):
        return canonical
    return echo(canonical, written, pairs, lang)


def roll_notes(rules: Any, view: View, rolls: Sequence[Any], lang: str) -> dict[int, str]:
    """What a roll's value meant, by roll counter, where the game says (Arditi: the number a draw
    from the bag took); from the optional ``roll_notes(view, rolls) -> {counter: Message}`` hook."""
    hook = getattr(rules, "roll_notes", None)
    if hook is None:
        return {}
    return {counter: rules.catalog.text(note, lang) for counter, note in hook(view, rolls).items()}
