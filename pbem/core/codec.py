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


def encode(obj: Any) -> Any:
    """Turn a value made of dataclasses, enums, tuples, dicts and scalars into JSON data."""
    if obj is None or isinstance(obj, (bool, int, float, str)):
        return obj
    if isinstance(obj, enum.Enum):
        return {_TYPE: type(obj).__name__, "v": obj.value}
    if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        out: dict[str, Any] = {_TYPE: type(obj).__name__}
        for f in dataclasses.fields(obj):
            out[f.name] = encode(getattr(obj, f.name))
        return out
    if isinstance(obj, tuple):
        return [encode(v) for v in obj]
    if isinstance(obj, list):
        return {_TYPE: "list", "v": [encode(v) for v in obj]}
    if isinstance(obj, frozenset):
        items = [encode(v) for v in obj]
        items.sort(key=lambda v: json.dumps(v, sort_keys=True))
        return {_TYPE: "frozenset", "v": items}
    if isinstance(obj, Mapping):
        pairs = [[encode(k), encode(v)] for k, v in obj.items()]
        pairs.sort(key=lambda kv: json.dumps(kv[0], sort_keys=True))
        return {_TYPE: "dict", "v": pairs}
    raise CodecError(f"cannot encode {type(obj).__name__}")


class Codec:
    """Decoder for one game's types."""

    def __init__(self, types: Iterable[type]) -> None:
        self._types: dict[str, type] = {t.__name__: t for t in types}

    def decode(self, data: Any) -> Any:
        if data is None or isinstance(data, (bool, int, float, str)):
            return data
        if isinstance(data, list):
            return tuple(self.decode(v) for v in data)
        if not isinstance(data, dict) or _TYPE not in data:
            raise CodecError(f"unexpected JSON value: {data!r:.80}")
        tag = data[_TYPE]
        if tag == "list":
            return [self.decode(v) for v in data["v"]]
        if tag == "frozenset":
            return frozenset(self.decode(v) for v in data["v"])
        if tag == "dict":
            return {self.decode(k): self.decode(v) for k, v in data["v"]}
        cls = self._types.get(tag)
        if cls is None:
            raise CodecError(f"unknown type tag {tag!r}")
        if issubclass(cls, enum.Enum):
            return cls(data["v"])
        kwargs = {k: self.decode(v) for k, v in data.items() if k != _TYPE}
        try:
            return cls(**kwargs)
        except TypeError as exc:
            raise CodecError(f"cannot build {tag}: {exc}") from exc


def canonical_json(data: Any) -> str:
    """Stable JSON text: the input of every hash we publish."""
    return json.dumps(data, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def sha256_hex(text: str | bytes) -> str:
    raw = text.encode("utf-8") if isinstance(text, str) else text
    return hashlib.sha256(raw).hexdigest()
