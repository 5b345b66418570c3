"""The codec's fast paths (``encode``, ``Codec.decode``) give what the general code gives
(``encode_any``, ``Codec.decode_any``) on every value: the same JSON, the same objects, the same
refusal with the same message."""

from __future__ import annotations

import enum
import json
from dataclasses import dataclass, field
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pbem.core import registry
from pbem.core.codec import Codec, canonical_json, encode, encode_any
from pbem.core.dice import VerifiableDice, orders_digest
from pbem.errors import CodecError


class Colour(enum.Enum):
    RED = "red"
    BLUE = 2


class Rank(enum.IntEnum):  # an int: both encoders keep it as the number it is
    LOW = 1
    HIGH = 2


class Name(str):  # a subclass of a JSON scalar: both decoders keep it as it is
    pass


@dataclass(frozen=True)
class Leaf:
    text: str
    number: int = 0
    flag: bool = False


@dataclass(frozen=True)
class Tree:
    leaves: tuple[Leaf, ...] = ()
    children: tuple["Tree", ...] = ()
    colour: Colour | None = None
    extra: Any = None
    named: dict[str, int] = field(default_factory=dict)


CODEC = Codec([Leaf, Tree, Colour, Rank])

_scalars = st.one_of(st.none(), st.booleans(), st.integers(-10**12, 10**12), st.text(max_size=8),
                     st.floats(allow_nan=False), st.sampled_from(list(Colour)), st.sampled_from(list(Rank)))
_leaves = st.builds(Leaf, st.text(max_size=6), st.integers(-5, 5), st.booleans())
_values = st.recursive(
    st.one_of(_scalars, _leaves),
    lambda inner: st.one_of(
        st.lists(inner, max_size=4).map(tuple),
        st.lists(inner, max_size=3),
        st.frozensets(st.one_of(st.integers(-3, 3), st.text(max_size=3), _leaves), max_size=3),
        st.dictionaries(st.one_of(st.integers(-3, 3), st.text(max_size=3)), inner, max_size=3),
        st.builds(Tree, st.lists(_leaves, max_size=3).map(tuple), st.just(()), st.one_of(st.none(),
                  st.sampled_from(list(Colour))), inner, st.dictionaries(st.text(max_size=3), st.integers(), max_size=2)),
    ),
    max_leaves=12,
)


def _same(a: Any, b: Any) -> bool:
    """Equal and of the same types all the way down (1 == True == 1.0 would hide a difference)."""
    if type(a) is not type(b):
        return False
    if isinstance(a, (tuple, list)):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b))
    if isinstance(a, dict):
        return list(a) == list(b) and all(_same(a[k], b[k]) for k in a)
    return bool(a == b)


def _outcome(call: Any, data: Any) -> Any:
    try:
        return ("ok", call(data))
    except Exception as exc:  # noqa: BLE001 - the refusal is what is compared
        return ("raised", type(exc), str(exc))


@settings(max_examples=400, deadline=None)
@given(_values)
def test_encode_is_encode_any_and_decode_is_decode_any(value: Any) -> None:
    data = encode_any(value)
    assert _same(encode(value), data)
    assert canonical_json(encode(value)) == canonical_json(data)
    loaded = json.loads(canonical_json(data))  # as the database gives it back
    assert _same(CODEC.decode(loaded), CODEC.decode_any(loaded))
    assert _same(CODEC.decode(data), CODEC.decode_any(data))


_json = st.recursive(
    st.one_of(st.none(), st.booleans(), st.integers(-3, 3), st.sampled_from(["x", "$t", "v", "Leaf", "list"])),
    lambda inner: st.one_of(
        st.lists(inner, max_size=3),
        st.dictionaries(st.sampled_from(["$t", "v", "text", "number", "flag", "leaves", "other"]), inner, max_size=4),
        st.fixed_dictionaries({"$t": st.sampled_from(["Leaf", "Tree", "Colour", "Rank", "list", "frozenset", "dict",
                                                      "Nope"])},
                              optional={"v": inner, "text": inner, "number": inner, "flag": inner, "leaves": inner,
                                        "odd": inner}),
    ),
    max_leaves=10,
)


@settings(max_examples=600, deadline=None)
@given(_json)
def test_decode_refuses_and_accepts_what_decode_any_does(data: Any) -> None:
    """Arbitrary JSON, mostly not a value: the same result, or the same exception and message."""
    fast, general = _outcome(CODEC.decode, data), _outcome(CODEC.decode_any, data)
    if fast[0] == "ok" and general[0] == "ok":
        assert _same(fast[1], general[1])
    else:
        assert fast == general


def test_values_json_does_not_type_exactly_go_the_general_way() -> None:
    data = {"$t": "Leaf", "text": Name("x"), "number": Rank.HIGH, "flag": True}
    got = CODEC.decode(data)
    assert _same(got, CODEC.decode_any(data)) and type(got.text) is Name and got.number is Rank.HIGH
    assert _same(CODEC.decode([Name("a"), [1, 2]]), CODEC.decode_any([Name("a"), [1, 2]]))
    assert encode(Rank.LOW) is Rank.LOW and encode(Name("y")) == "y"
    with pytest.raises(CodecError, match="unknown type tag"):
        CODEC.decode({"$t": "Nope"})
    with pytest.raises(CodecError, match="cannot build Leaf"):
        CODEC.decode({"$t": "Leaf", "text": "a", "odd": 1})


#: The shipped games (other test modules register a test game, "duel", that keeps its own storage).
SHIPPED = tuple(k for k in registry.kinds() if registry._ENGINES[k].startswith("pbem.games."))


@pytest.mark.parametrize("kind", SHIPPED)
def test_every_games_states_and_sheets_decode_as_the_general_code_does(kind: str) -> None:
    """The games' own states, through a few phases of random orders: the same JSON and objects."""
    from pbem.core.rules import Sheet

    rules: Any = registry.get(kind)  # a DataclassStorage: its codecs are compared
    seats = list(rules.info.seats)[:rules.info.max_seats]
    state = rules.new_game(seats, {})
    picks = iter(range(10**6))
    for number in range(4):
        phase = rules.phase(state)
        if not phase.awaiting:
            break
        sheets: dict[str, Sheet] = {}
        for seat in phase.awaiting:
            text = rules.random_orders(state, seat, lambda n: next(picks) * 7919 % n)
            sheets[seat] = rules.parse_orders(state, seat, text)
            data = json.loads(canonical_json(encode_any(tuple(sheets[seat].orders))))
            assert _same(encode(tuple(sheets[seat].orders)), encode_any(tuple(sheets[seat].orders)))
            assert _same(rules._orders_codec.decode(data), rules._orders_codec.decode_any(data))
        data = json.loads(canonical_json(encode_any(state)))
        assert _same(rules.encode_state(state), encode_any(state))
        assert _same(rules.decode_state(data), rules._codec.decode_any(data))
        assert rules.decode_state(data) == state
        dice = VerifiableDice(b"codec", "c1", number, orders_digest({s: sh.canonical() for s, sh in sheets.items()}), 0)
        state = rules.resolve(state, sheets, dice).state


@dataclass(frozen=True)
class Checked:
    value: int

    def __post_init__(self) -> None:
        if self.value < 0:
            raise TypeError("negative")


@dataclass
class Slotted:
    __slots__ = ("value",)
    value: int


@dataclass(frozen=True)
class OwnInit:
    value: int

    def __init__(self, value: int) -> None:
        object.__setattr__(self, "value", value * 2)


@dataclass(frozen=True)
class Derived(OwnInit):
    pass


@dataclass(frozen=True)
class Hidden:
    value: int
    seen: int = field(default=7, init=False)


def test_only_plain_dataclasses_are_built_without_their_init() -> None:
    """A class whose __init__ does more than store its fields is built by its __init__, as before."""
    codec = Codec([Leaf, Tree, Checked, Slotted, OwnInit, Derived, Hidden])
    # Derived's own __init__ is the one dataclass wrote (it only stores): built directly, as it builds
    assert sorted(codec._direct) == ["Derived", "Leaf", "Tree"]
    for data in ({"$t": "Checked", "value": 1}, {"$t": "Slotted", "value": 2}, {"$t": "OwnInit", "value": 3},
                 {"$t": "Derived", "value": 4}):
        assert _same(codec.decode(data), codec.decode_any(data))
    assert codec.decode({"$t": "OwnInit", "value": 3}).value == 6 and codec.decode({"$t": "Derived", "value": 4}).value == 4
    assert _outcome(codec.decode, {"$t": "Checked", "value": -1}) == _outcome(codec.decode_any, {"$t": "Checked", "value": -1})
    assert _outcome(codec.decode, {"$t": "Hidden", "value": 1, "seen": 2})[0] == "raised"


def test_an_object_built_without_init_is_the_one_init_builds() -> None:
    leaf = CODEC.decode({"$t": "Leaf", "text": "a", "number": 2, "flag": True})
    built = Leaf("a", 2, True)
    assert leaf == built and hash(leaf) == hash(built) and repr(leaf) == repr(built)
    assert list(vars(leaf)) == list(vars(built))  # the fields in the order __init__ stores them
    with pytest.raises(AttributeError):
        leaf.text = "b"  # type: ignore[misc]
    partial = CODEC.decode({"$t": "Tree", "leaves": []})  # fields left out: __init__ gives their defaults
    assert partial == Tree() and _same(partial, CODEC.decode_any({"$t": "Tree", "leaves": []}))
