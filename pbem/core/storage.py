"""The state and order codec that every engine built on frozen dataclasses shares."""

from __future__ import annotations

from typing import Any, Iterable, Sequence

from pbem.core.codec import Codec, encode
from pbem.core.rules import GameInfo
from pbem.errors import CodecError


class DataclassStorage:
    """Mix-in: ``encode_state``/``decode_state``/``encode_orders``/``decode_orders`` of the
    Rules protocol, for an engine whose state is ``state_type`` and whose types are
    known to ``_codec`` (states) and ``_orders_codec`` (orders)."""

    info: GameInfo

    def __init__(self, state_type: type, state_types: Iterable[type], order_types: Iterable[type]) -> None:
        self.state_type = state_type
        self._codec = Codec(state_types)
        self._orders_codec = Codec(order_types)

    def encode_state(self, state: Any) -> Any:
        return encode(state)

    def decode_state(self, data: Any) -> Any:
        state = self._codec.decode(data)
        if not isinstance(state, self.state_type):
            raise CodecError(f"not a {self.info.title} state")
        return state

    def encode_orders(self, orders: Sequence[Any]) -> Any:
        return encode(tuple(orders))

    def decode_orders(self, data: Any) -> tuple[Any, ...]:
        return tuple(self._orders_codec.decode(data))
