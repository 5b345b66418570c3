"""Block Mania's 55 double-sided cards, Mania side and Justice side, read from ``data/cards.toml``.

The seed gives the deck (1.i, 3, 10.ii, 12.i), the three Mania types and when they are played (11.ii
Command, 11.iii Hazard, 11.iv Attack) and the Justice side's use (12.ii), but leaves every card's effect to
the missing Blocker manual: the faces are reconstructed (docs/games/blockmania.md, "The Mania / Justice
deck"). Effects are keyed types with checked parameters, so the engine can apply them; the loader checks
timings against the rulebook, the deck's size and composition, and every name an effect gives against the
roster (Blocker types, counters, markers), raising ``CardsError`` naming the entry.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Final, Mapping, Sequence

from pbem.games.common.data import MALFORMED, load_toml

from pbem.games.blockmania.roster import ROSTER, Roster

SIDES = ("mania", "justice")
KINDS = ("command", "hazard", "attack", "justice")
PHASES = ("command", "defensive-fire", "combat")  # 4: the end phase has no cards but the draw
PLAYERS = ("active", "any")
WINDOWS = ("any-time", "in-square", "before-dice", "command-start")
AFFECTS = ("own", "any")
ATTACKS = ("shooting", "defensive-fire", "close-combat", "demolition", "looting", "arson", "fire-fighting")
CHOOSERS = ("player", "owner")
SCOPES = ("any", "one-block", "each-player")
# The kinds of square a Hazard card or a Justice effect may name (1.ii: type, colour, special location,
# symbol); the block maps use the same keys.
SQUARE_KINDS = (
    "open-air", "window", "interior", "residential", "civic", "bank", "armoury", "shopping-mall",
    "vehicle-park", "balcony", "entrance-plaza", "sky-rail-station", "tubeway", "pedway", "pedway-terminus",
    "mega-way", "tunnel", "tween-block-plaza", "lift", "grav-chute", "fire-control",
)

# effect type -> (the kinds of face that may carry it, its parameters and their checks)
_INT = "int>0"
_SIGNED = "int!=0"
_TEXT = "text"
EFFECTS: Final[Mapping[str, tuple[tuple[str, ...], Mapping[str, Any]]]] = {
    "command-points": (("command",), {"amount": _INT}),
    "command-reroll": (("command",), {}),
    "sky-rail-train": (("command",), {"count": _INT}),
    "hire-blocker": (("command",), {"blocker": "blocker", "count": _INT}),
    "free-blocker": (("command",), {"count": _INT}),
    "free-activation": (("command",), {"count": _INT}),
    "extra-movement": (("command",), {"mp": _INT}),
    "draw-counter": (("command",), {"pool": ("armoury", "hardware"), "count": _INT}),
    "hazard-attack": (("hazard",), {"bonus": _INT, "attacker": _TEXT}),
    "hazard-stop": (("hazard",), {}),
    "roll-modifier": (("attack",), {"amount": _SIGNED, "attack": ATTACKS, "whose": ("own", "enemy")}),
    "cancel-shot": (("attack",), {}),
    "extra-attack": (("attack",), {}),
    "defensive-fire-range": (("attack",), {"range": _INT}),
    "arrest": (("justice",), {"count": _INT, "chooser": CHOOSERS, "scope": SCOPES}),
    "arrest-in-squares": (("justice",), {"square": SQUARE_KINDS}),
    "arrest-types": (("justice",), {"blockers": "blockers"}),
    "arrest-carrying": (("justice",), {"counter": "counter-or-heavy"}),
    "arrest-locked": (("justice",), {}),
    "judge-patrol": (("justice",), {"marker": "marker"}),
}
# Effects whose outcome depends on dice the card changes: they must come before the dice (11.iv).
DICE_EFFECTS = ("roll-modifier", "cancel-shot")
# Which attack the modified roll belongs to, and in which phases that attack happens (7, 8, 9).
ATTACK_PHASES: Final[Mapping[str, tuple[str, ...]]] = {
    "shooting": ("defensive-fire", "combat"), "defensive-fire": ("defensive-fire",),
    "close-combat": ("combat",), "demolition": ("combat",), "looting": ("combat",), "arson": ("combat",),
    "fire-fighting": ("combat",),
}


class CardsError(ValueError):
    """The card data is inconsistent; the message says where."""


@dataclass(frozen=True)
class Kind:
    """When a kind of face is played and by whom (11.ii-11.iv, 12.ii)."""

    key: str
    side: str
    phases: tuple[str, ...]
    played_by: str
    windows: tuple[str, ...]
    affects: str


@dataclass(frozen=True)
class Effect:
    """A keyed effect the engine applies, with its parameters (see ``EFFECTS``)."""

    type: str
    params: Mapping[str, Any]

    def __getitem__(self, name: str) -> Any:
        return self.params[name]


@dataclass(frozen=True)
class Face:
    """One side of a card: a Mania face (command, hazard, attack) or a Justice face."""

    key: str
    name: str
    kind: Kind
    effect: Effect
    phases: tuple[str, ...]
    window: str
    square: str | None = None  # Hazard cards: the square kind printed in bold (11.iii)

    @property
    def side(self) -> str:
        return self.kind.side

    @property
    def played_by(self) -> str:
        return self.kind.played_by

    def playable(self, phase: str, active: bool) -> bool:
        """Whether a player (the active one or not) may play the face in ``phase`` (11, 12.ii)."""
        return phase in self.phases and (self.played_by == "any" or active)


@dataclass(frozen=True)
class Card:
    """A physical card: its number in the deck (1-55, ours) and its two faces (1.iv)."""

    number: int
    mania: Face
    justice: Face


@dataclass(frozen=True)
class DeckRules:
    size: int  # 1.i
    hand: int  # 3
    hand_limit: int  # 10.ii, 11.i
    draw_per_turn: int  # 10.ii
    set_aside: Mapping[int, int]  # 3
    extra_deck_per_player: int  # Mega Mega-Mania
    justice_per_turn: int  # 12.ii
    justice_fallback: int  # ours
    justice_reshuffle: bool  # ours


@dataclass(frozen=True)
class Deck:
    rules: DeckRules
    kinds: tuple[Kind, ...]
    mania: tuple[Face, ...]
    justice: tuple[Face, ...]
    cards: tuple[Card, ...]

    def face(self, key: str) -> Face:
        for face in (*self.mania, *self.justice):
            if face.key == key:
                return face
        raise KeyError(f"unknown face {key!r}")

    def card(self, number: int) -> Card:
        if not 1 <= number <= len(self.cards):
            raise KeyError(f"no card number {number}")
        return self.cards[number - 1]

    def count(self, kind: str) -> int:
        """How many cards have a Mania face of that kind (or, for "justice", every card)."""
        if kind == "justice":
            return len(self.cards)
        return sum(1 for c in self.cards if c.mania.kind.key == kind)

    def copies(self, face: str) -> int:
        return sum(1 for c in self.cards if face in (c.mania.key, c.justice.key))

    def set_aside(self, players: int) -> int:
        """Cards kept out until the Final Phase (3); beyond four players (Mega Mega-Mania, silent on this)
        the four-player number (ours)."""
        if players in self.rules.set_aside:
            return self.rules.set_aside[players]
        if players > max(self.rules.set_aside):
            return min(self.rules.set_aside.values())
        raise ValueError(f"no set-aside for {players} players")

    def mania_draws(self, players: int) -> int:
        """Cards left in the Mania deck after the set-aside and the first hands (3)."""
        return self.rules.size - self.set_aside(players) - self.rules.hand * players

    def extra_deck(self, players: int) -> int:
        """Mega Mega-Mania: the second Mania deck, 12 cards a player beyond the fourth."""
        return self.rules.extra_deck_per_player * max(0, players - 4)

    @property
    def max_players(self) -> int:
        """The most players the deck serves: the Mega Mega-Mania deck must fit in 55 cards."""
        n = 4
        while self.extra_deck(n + 1) <= self.rules.size and self.mania_draws(n + 1) > 0:
            n += 1
        return n


# -- loading ----------------------------------------------------------------------------------------


def _err(what: str) -> CardsError:
    return CardsError(f"cards.toml: {what}")


def _kinds(data: Mapping[str, Any]) -> dict[str, Kind]:
    kinds: dict[str, Kind] = {}
    for raw in data["kind"]:
        k = Kind(str(raw["key"]), str(raw["side"]), tuple(str(p) for p in raw["phases"]), str(raw["played_by"]),
                 tuple(str(w) for w in raw["windows"]), str(raw["affects"]))
        where = f"kind {k.key!r}"
        if k.key in kinds or k.key not in KINDS:
            raise _err(f"{where}: unknown or repeated")
        if k.side not in SIDES or k.played_by not in PLAYERS or k.affects not in AFFECTS:
            raise _err(f"{where}: bad side, played_by or affects")
        if not k.phases or set(k.phases) - set(PHASES) or set(k.windows) - set(WINDOWS) or not k.windows:
            raise _err(f"{where}: bad phases {list(k.phases)} or windows {list(k.windows)}")
        kinds[k.key] = k
    if set(kinds) != set(KINDS):
        raise _err(f"kinds {sorted(kinds)}, expected {sorted(KINDS)}")
    # The rulebook's timings, which the data must not contradict.
    expected = {
        "command": (("command",), "active", "own"),  # 11.ii
        "hazard": (("command", "defensive-fire", "combat"), "any", "any"),  # 11.i, 11.iii
        "attack": (("defensive-fire", "combat"), "any", "any"),  # 11.i, 11.iv
        "justice": (("command",), "active", "any"),  # 12.ii
    }
    for key, (phases, by, affects) in expected.items():
        k = kinds[key]
        if (k.phases, k.played_by, k.affects) != (phases, by, affects):
            raise _err(f"kind {key!r}: phases {list(k.phases)}, played_by {k.played_by!r}, affects "
                       f"{k.affects!r} contradict the rulebook ({list(phases)}, {by!r}, {affects!r})")
    if kinds["justice"].side != "justice" or any(kinds[k].side != "mania" for k in KINDS[:3]):
        raise _err("command, hazard and attack are Mania faces, justice the Justice face (1.iv, 11.i)")
    if "before-dice" not in kinds["attack"].windows or kinds["hazard"].windows != ("in-square",):
        raise _err("attack cards changing dice come before the dice (11.iv); hazards name a square (11.iii)")
    return kinds


def _param(value: Any, check: Any, where: str, roster: Roster) -> Any:
    if check == _INT:
        if not isinstance(value, int) or isinstance(value, bool) or value < 1:
            raise _err(f"{where}: must be a positive whole number, not {value!r}")
        return value
    if check == _SIGNED:
        if not isinstance(value, int) or isinstance(value, bool) or value == 0:
            raise _err(f"{where}: must be a non-zero whole number, not {value!r}")
        return value
    if check == _TEXT:
        if not isinstance(value, str) or not value.strip():
            raise _err(f"{where}: must be a text")
        return value
    if check == "blocker":
        if str(value) not in {b.key for b in roster.blockers}:
            raise _err(f"{where}: unknown Blocker type {value!r}")
        return str(value)
    if check == "blockers":
        names = tuple(str(v) for v in value) if isinstance(value, list) else ()
        unknown = [n for n in names if n not in {b.key for b in roster.blockers}]
        if not names or unknown or len(set(names)) != len(names):
            raise _err(f"{where}: needs distinct known Blocker types, unknown {unknown or value!r}")
        return names
    if check == "counter-or-heavy":
        if value != "heavy" and str(value) not in {c.key for c in roster.counters}:
            raise _err(f"{where}: unknown counter {value!r}")
        return str(value)
    if check == "marker":
        if str(value) not in {m.key for m in roster.markers}:
            raise _err(f"{where}: unknown marker {value!r}")
        return str(value)
    assert isinstance(check, tuple)
    if value not in check:
        raise _err(f"{where}: {value!r} is not one of {list(check)}")
    return str(value)


def _effect(raw: Mapping[str, Any], kind: Kind, where: str, roster: Roster) -> Effect:
    params = dict(raw)
    etype = str(params.pop("type", ""))
    if etype not in EFFECTS:
        raise _err(f"{where}: unknown effect type {etype!r}")
    kinds, spec = EFFECTS[etype]
    if kind.key not in kinds:
        raise _err(f"{where}: a {kind.key} face cannot have the effect {etype!r} (only {list(kinds)})")
    if set(params) != set(spec):
        raise _err(f"{where}: effect {etype!r} takes {sorted(spec)}, got {sorted(params)}")
    checked = {name: _param(params[name], check, f"{where}, {etype} {name}", roster) for name, check in spec.items()}
    return Effect(etype, checked)


def _face(raw: Mapping[str, Any], kind: Kind, roster: Roster) -> Face:
    key = str(raw["key"])
    where = f"{kind.side} face {key!r}"
    effect = _effect(raw["effect"], kind, where, roster)
    phases = tuple(str(p) for p in raw.get("phases", kind.phases))
    if not phases or not set(phases) <= set(kind.phases):
        raise _err(f"{where}: phases {list(phases)} outside its kind's {list(kind.phases)}")
    window = str(raw.get("window", kind.windows[0]))
    if window not in kind.windows:
        raise _err(f"{where}: window {window!r} not one of {list(kind.windows)}")
    if effect.type in DICE_EFFECTS and window != "before-dice":
        raise _err(f"{where}: a card changing dice is played before them (11.iv)")
    if effect.type == "roll-modifier" and not set(phases) & set(ATTACK_PHASES[effect["attack"]]):
        raise _err(f"{where}: no {effect['attack']} attack happens in {list(phases)}")
    if effect.type == "defensive-fire-range" and phases != ("defensive-fire",):
        raise _err(f"{where}: defensive fire happens only in the Defensive Fire Phase (7)")
    square = str(raw["square"]) if "square" in raw else None
    if (square is None) == (kind.key == "hazard"):
        raise _err(f"{where}: Hazard cards, and only they, name a square in bold (11.iii)")
    if square is not None and square not in SQUARE_KINDS:
        raise _err(f"{where}: unknown square kind {square!r}")
    return Face(key, str(raw["name"]), kind, effect, phases, window, square)


def _faces(data: Mapping[str, Any], kinds: Mapping[str, Kind], roster: Roster) -> tuple[tuple[Face, ...], ...]:
    mania, justice = [], []
    for raw in data["mania"]:
        kind = str(raw["kind"])
        if kind not in kinds or kinds[kind].side != "mania":
            raise _err(f"mania face {raw.get('key')!r}: bad kind {kind!r}")
        mania.append(_face(raw, kinds[kind], roster))
    for raw in data["justice"]:
        justice.append(_face(raw, kinds["justice"], roster))
    keys = [f.key for f in (*mania, *justice)]
    for key in keys:
        if keys.count(key) > 1:
            raise _err(f"face {key!r} appears twice")
    return tuple(mania), tuple(justice)


def _cards(data: Mapping[str, Any], mania: Sequence[Face], justice: Sequence[Face]) -> tuple[Card, ...]:
    by_m, by_j = {f.key: f for f in mania}, {f.key: f for f in justice}
    cards: list[Card] = []
    pairs: set[tuple[str, str]] = set()
    for raw in data["card"]:
        m, j, copies = str(raw["mania"]), str(raw["justice"]), int(raw["copies"])
        where = f"card {m!r} / {j!r}"
        if m not in by_m or j not in by_j:
            raise _err(f"{where}: unknown mania or justice face")
        if (m, j) in pairs:
            raise _err(f"{where} appears twice")
        if copies < 1:
            raise _err(f"{where}: copies {copies}")
        pairs.add((m, j))
        for _ in range(copies):
            cards.append(Card(len(cards) + 1, by_m[m], by_j[j]))
    unused = sorted({f.key for f in (*mania, *justice)} - {k for pair in pairs for k in pair})
    if unused:
        raise _err(f"faces on no card: {unused}")
    return tuple(cards)


def _deck_rules(raw: Mapping[str, Any]) -> DeckRules:
    set_aside = {int(k): int(v) for k, v in raw["set_aside"].items()}
    rules = DeckRules(int(raw["size"]), int(raw["hand"]), int(raw["hand_limit"]), int(raw["draw_per_turn"]),
                      set_aside, int(raw["extra_deck_per_player"]), int(raw["justice_per_turn"]),
                      int(raw["justice_fallback"]), bool(raw["justice_reshuffle"]))
    if sorted(set_aside) != [2, 3, 4]:
        raise _err("deck: set_aside for 2, 3 and 4 players (3)")
    counts = [set_aside[n] for n in (2, 3, 4)]
    if counts != sorted(counts, reverse=True) or counts[-1] < 0:
        raise _err("deck: fewer cards set aside with more players (3)")
    for n, aside in set_aside.items():
        if aside + rules.hand * n >= rules.size:
            raise _err(f"deck: with {n} players no card is left to draw")
    if rules.hand > rules.hand_limit or rules.draw_per_turn < 1:
        raise _err("deck: the first hand exceeds the hand limit, or no draw")
    if rules.justice_per_turn != 1 or rules.justice_fallback < 1:
        raise _err("deck: exactly one Justice card a turn (12.ii), and it always removes a Blocker")
    return rules


def parse_cards(data: Mapping[str, Any], roster: Roster = ROSTER) -> Deck:
    """Build and check the deck from parsed TOML, naming Blockers, counters and markers of ``roster``."""
    rules = _deck_rules(data["deck"])
    kinds = _kinds(data)
    mania, justice = _faces(data, kinds, roster)
    cards = _cards(data, mania, justice)
    if len(cards) != rules.size:
        raise _err(f"the cards add up to {len(cards)}, the deck has {rules.size} (1.i)")
    for kind in KINDS[:3]:
        if not any(c.mania.kind.key == kind for c in cards):
            raise _err(f"no {kind} card (11.i)")
    effects = {c.mania.effect.type for c in cards}
    if "sky-rail-train" not in effects:
        raise _err("no card places a Sky Rail train: 6.vi makes them the only way")
    if "command-reroll" not in effects:
        raise _err("no card re-rolls the Command Points (11.ii names them)")
    hired = {c.mania.effect["blocker"] for c in cards if c.mania.effect.type == "hire-blocker"}
    for key in hired:
        blocker = roster.blocker(key)
        if blocker.source != "card":
            raise _err(f"a card hires {key!r}, which is in the piles")
    for b in roster.card_blockers():
        if b.key not in hired:
            raise _err(f"Blocker {b.key!r} comes by card, but no card brings it")
    for face in mania:
        if face.effect.type == "hire-blocker" and face.effect["count"] > roster.blocker(face.effect["blocker"]).pool:
            raise _err(f"mania face {face.key!r} hires more {face.effect['blocker']!r} than their pool")
    return Deck(rules, tuple(kinds.values()), mania, justice, cards)


def load_cards(text: str | None = None, roster: Roster = ROSTER) -> Deck:
    """The deck from ``text`` (TOML) or from the packaged ``data/cards.toml``."""
    return load_toml("pbem.games.blockmania.data", "cards.toml", text, lambda data: parse_cards(data, roster),
                     CardsError, MALFORMED + (AttributeError,))


DECK: Final = load_cards()
