"""A small JSON codec for frozen dataclasses, used for game states and orders.

Each game lists its dataclass and enum types; encoding tags objects with their
class name so that decoding needs no schema.  Tuples and frozensets come back as
tuples / frozensets, so a decoded state compares equal to the original.
"""

from __future__ import annotations

import dataclasses
import enum
import hashlib
import json
from typing import Any, Iterable, Mapping

from pbem.errors import CodecError

_TYPE = "$t"
_SCALARS = frozenset({str, int, float, bool, type(None)})  # JSON scalars, as json.loads types them
_CONTAINERS = frozenset({"list", "frozenset", "dict"})
_FIELDS: dict[type, tuple[str, ...]] = {}  # a dataclass -> its fields' names, in order (met by encode_any)


def encode(obj: Any) -> Any:
    """Turn a value made of dataclasses, enums, tuples, dicts and scalars into JSON data: ``encode_any``,
    with the scalars, tuples and dataclasses ``encode_any`` has met taken without its checks (a
    dataclass's field names are read once per class)."""
    kind = type(obj)
    if kind in _SCALARS:
        return obj
    if kind is tuple:
        return [v if type(v) in _SCALARS else encode(v) for v in obj]
    names = _FIELDS.get(kind)
    if names is None:
        return encode_any(obj)
    out: dict[str, Any] = {_TYPE: kind.__name__}
    for name in names:
        value = getattr(obj, name)
        out[name] = value if type(value) in _SCALARS else encode(value)
    return out


def encode_any(obj: Any) -> Any:
    """The general encoder, checked node by node (``encode`` is the same, faster)."""
    if obj is None or isinstance(obj, (bool, int, float, str)):
        return obj
    if isinstance(obj, enum.Enum):
        return {_TYPE: type(obj).__name__, "v": obj.value}
    if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        fields = dataclasses.fields(obj)
        _FIELDS.setdefault(type(obj), tuple(f.name for f in fields))
        out: dict[str, Any] = {_TYPE: type(obj).__name__}
        for f in fields:
            out[f.name] = encode_any(getattr(obj, f.name))
        return out
    if isinstance(obj, tuple):
        return [encode_any(v) for v in obj]
    if isinstance(obj, list):
        return {_TYPE: "list", "v": [encode_any(v) for v in obj]}
    if isinstance(obj, frozenset):
        items = [encode_any(v) for v in obj]
        items.sort(key=lambda v: json.dumps(v, sort_keys=True))
        return {_TYPE: "frozenset", "v": items}
    if isinstance(obj, Mapping):
        pairs = [[encode_any(k), encode_any(v)] for k, v in obj.items()]
        pairs.sort(key=lambda kv: json.dumps(kv[0], sort_keys=True))
        return {_TYPE: "dict", "v": pairs}
    raise CodecError(f"cannot encode {type(obj).__name__}")


class Codec:
    """Decoder for one game's types."""

    def __init__(self, types: Iterable[type]) -> None:
        self._types: dict[str, type] = {t.__name__: t for t in types}
        self._enums: frozenset[str] = frozenset(n for n, t in self._types.items() if issubclass(t, enum.Enum))
        # tag -> (class, its fields in order, the keys its JSON has) for the classes built without __init__
        self._direct: dict[str, tuple[type, tuple[str, ...], frozenset[str]]] = {}
        for name, cls in self._types.items():
            names = _direct_fields(cls)
            if names is not None:
                self._direct[name] = (cls, names, frozenset(names) | {_TYPE})

    def decode(self, data: Any) -> Any:
        """``decode_any`` for JSON as ``json.loads`` gives it (exact types; a state is ~600 nodes,
        most of them scalars): scalars are taken in place, without a call each; anything else
        (a subclass of a JSON type, a value that is not JSON) goes the general way."""
        kind = type(data)
        if kind in _SCALARS:
            return data
        if kind is list:
            return tuple([v if type(v) in _SCALARS else self.decode(v) for v in data])
        if kind is not dict or _TYPE not in data:
            return self.decode_any(data)
        tag = data[_TYPE]
        if type(tag) is not str or tag in _CONTAINERS or tag in self._enums or tag not in self._types:
            return self.decode_any(data)
        kwargs = {k: v if type(v) in _SCALARS else self.decode(v) for k, v in data.items() if k != _TYPE}
        direct = self._direct.get(tag)
        if direct is not None and data.keys() == direct[2]:
            # every field given: what the dataclass's own __init__ would store, stored in its order
            obj: Any = object.__new__(direct[0])
            fields = obj.__dict__
            for name in direct[1]:
                fields[name] = kwargs[name]
            return obj
        try:
            return self._types[tag](**kwargs)
        except TypeError as exc:
            raise CodecError(f"cannot build {tag}: {exc}") from exc

    def decode_any(self, data: Any) -> Any:
        """The general decoder: any value ``encode`` can give, checked node by node."""
        if data is None or isinstance(data, (bool, int, float, str)):
            return data
        if isinstance(data, list):
            return tuple(self.decode_any(v) for v in data)
        if not isinstance(data, dict) or _TYPE not in data:
            raise CodecError(f"unexpected JSON value: {data!r:.80}")
        tag = data[_TYPE]
        if tag == "list":
            return [self.decode_any(v) for v in data["v"]]
        if tag == "frozenset":
            return frozenset(self.decode_any(v) for v in data["v"])
        if tag == "dict":
            return {self.decode_any(k): self.decode_any(v) for k, v in data["v"]}
        cls = self._types.get(tag)
        if cls is None:
            raise CodecError(f"unknown type tag {tag!r}")
        if issubclass(cls, enum.Enum):
            return cls(data["v"])
        kwargs = {k: self.decode_any(v) for k, v in data.items() if k != _TYPE}
        try:
            return cls(**kwargs)
        except TypeError as exc:
            raise CodecError(f"cannot build {tag}: {exc}") from exc


def _direct_fields(cls: type) -> tuple[str, ...] | None:
    """The fields, in order, of a dataclass whose ``__init__`` only stores its arguments: the one
    ``dataclass`` wrote, no ``__post_init__``, no ``__new__``, no slots, every field an init field; else
    None. Such an object, all its fields given, is the same built by storing them (a frozen
    dataclass's ``__init__`` stores each through ``object.__setattr__``: ~1.4 us a unit of a state)."""
    if not dataclasses.is_dataclass(cls) or issubclass(cls, enum.Enum) or cls.__new__ is not object.__new__:
        return None
    if hasattr(cls, "__post_init__") or hasattr(cls, "__slots__") or not cls.__dataclass_params__.init:  # type: ignore[attr-defined]
        return None
    code = getattr(cls.__dict__.get("__init__"), "__code__", None)
    if code is None or code.co_filename != "<string>" or code.co_name != "__init__":
        return None  # an __init__ of the class's own, or inherited
    fields = dataclasses.fields(cls)
    if len(fields) != len(cls.__dataclass_fields__) or not all(f.init for f in fields):  # type: ignore[attr-defined]
        return None  # an InitVar, a ClassVar or a field the __init__ does not take
    return tuple(f.name for f in fields)


def canonical_json(data: Any) -> str:
    """Stable JSON text: the input of every hash we publish."""
    return json.dumps(data, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def sha256_hex(text: str | bytes) -> str:
    raw = text.encode("utf-8") if isinstance(text, str) else text
    return hashlib.sha256(raw).hexdigest()
