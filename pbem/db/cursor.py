"""The cursor pbem's PostgreSQL connections make (``cursor_factory``): psycopg's own, its
``description`` made once for each shape of result a connection sees.

Why: psycopg makes a new `psycopg.Column` for every column each time ``description`` is read,
and SQLAlchemy reads it for every statement it runs. An order mail reads its game with one
statement of 63 columns (the game, its phase, the player, the seats and holders, the sheets:
`pbem.service.inbound.read_game`): 194 µs of the worker's CPU a mail on a machine where the
whole mail cost 12 ms. A result's columns are known by what the server says of each (name,
type, modifier, size): the same again, the same description, read from a dictionary of the
connection's own (the type adapters it names are the connection's)."""

from __future__ import annotations

from typing import Any

import psycopg
from psycopg.pq import ExecStatus

#: The attribute of a connection that holds its descriptions, by their columns' signature.
_KEPT = "_pbem_descriptions"
#: At most this many shapes of result a connection keeps (a connection that saw more starts over).
_KEPT_MAX = 512
_ROWS = (ExecStatus.TUPLES_OK, ExecStatus.SINGLE_TUPLE)


class Cursor(psycopg.Cursor[Any]):
    """`psycopg.Cursor` whose ``description`` is kept (module docstring); a copy is returned,
    as psycopg returns a new list each time."""

    __slots__ = ()

    @property
    def description(self) -> list[psycopg.Column] | None:
        res = self.pgresult
        if res is None:
            return None
        count = res.nfields
        if not count and res.status not in _ROWS:  # as psycopg's: no columns and no rows, no description
            return super().description
        shape = tuple((res.fname(i), res.ftype(i), res.fmod(i), res.fsize(i)) for i in range(count))
        kept: dict[tuple[Any, ...], list[psycopg.Column]] = self.connection.__dict__.setdefault(_KEPT, {})
        columns = kept.get(shape)
        if columns is None:
            columns = super().description
            if columns is None:
                return None
            if len(kept) >= _KEPT_MAX:
                kept.clear()
            kept[shape] = columns
        return list(columns)
