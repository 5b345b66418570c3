"""The statements every order mail runs, prebuilt Core statements, run as their compiled SQL on
the connection's DBAPI cursor: compiled once per statement, dialect and set of parameters, their
values put through the column types' bind processors (the seal of a mail's bytes, naive UTC
times) and their rows through the result processors, as `Connection.execute` would.

Why: `Connection.execute` spends as long again as the driver on its own bookkeeping around each
statement (the cache key, the execution context, the result's metadata): the outbox INSERT cost
114-121 µs of CPU through it and 61-64 µs so (benchmarks/mail_throughput.py: PostgreSQL workers
are CPU-bound, and an order mail runs six such statements).

What stays as `Connection.execute` has it: the statement runs in the connection's transaction,
the engine's ``before_cursor_execute``/``after_cursor_execute`` listeners hear it (the tests and
benchmarks count statements so), and a driver's error is raised as SQLAlchemy's (an
``IntegrityError`` for a key taken), a lost connection invalidated. A statement with an
expanding parameter (an ``IN`` list), a computed default or a parameter left out is refused
(`Refused`, a ``ValueError``): those run through `Connection.execute`. Rows come as tuples, or
``named`` as named tuples (``row.id``, ``row[0]``), what a caller of `Connection.execute` reads.
"""

from __future__ import annotations

import threading
from collections import namedtuple
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy.engine import Connection
from sqlalchemy.sql.compiler import SQLCompiler
from sqlalchemy.sql.expression import Executable


@dataclass(frozen=True)
class _Plan:
    """One statement compiled for one dialect and one set of parameter names."""

    sql: str
    positional: tuple[str, ...] | None  # the parameters' order where the driver takes a sequence
    defaults: Mapping[str, Any]  # the values the statement holds itself (a notice's channel)
    binds: Mapping[str, Callable[[Any], Any]]
    results: tuple[Callable[[Any], Any] | None, ...]  # empty: the statement returns no rows
    row: Any  # the named tuple of its rows (`rows` with ``named``)


class Refused(ValueError):
    """A statement `rows` does not run: it runs through `Connection.execute`."""


#: The DBAPI cursor a pooled connection keeps for these statements (in its ``info``).
_CURSOR = "pbem_direct_cursor"
#: Plans by statement, dialect and parameter names: per dialect, not per kind of database, as
#: the bind processors are (a sealed column seals with the key of its engine's dialect).
_PLANS: dict[tuple[int, int, frozenset[str]], tuple[Executable, Any, _Plan | str]] = {}
_PLANS_MAX = 512
_LOCK = threading.Lock()


def rows(conn: Connection, stmt: Executable, params: Mapping[str, Any], named: bool = False) -> list[Any]:
    """``stmt`` with ``params`` on ``conn``: its rows (RETURNING or SELECT) as tuples (``named``:
    named tuples, by the columns' keys), processed as the columns' types say; [] for a statement
    that returns none. `Refused`: a statement to run through `Connection.execute`."""
    plan = _plan(conn, stmt, params)
    values = {**plan.defaults, **params}
    for name, process in plan.binds.items():
        values[name] = process(values[name])
    parameters: Any = tuple(values[name] for name in plan.positional) if plan.positional is not None else values
    pooled = conn.connection
    cursor = pooled.info.get(_CURSOR)
    if cursor is None:  # one a DBAPI connection (``info`` goes with it when it is closed or invalidated)
        cursor = pooled.info[_CURSOR] = pooled.driver_connection.cursor()  # type: ignore[union-attr]
    events = conn._has_events or conn.engine._has_events
    if events:
        conn.dispatch.before_cursor_execute(conn, cursor, plan.sql, parameters, None, False)
    try:
        cursor.execute(plan.sql, parameters)
        described = cursor.description  # a text statement's rows are known by it alone
        got = cursor.fetchall() if described is not None else []
    except conn.dialect.loaded_dbapi.Error as exc:
        pooled.info.pop(_CURSOR, None)  # closed by what follows: the next statement takes a new one
        conn._handle_dbapi_exception(exc, plan.sql, parameters, cursor, None)  # raises it as SQLAlchemy's
        raise  # pragma: no cover - the call above always raises
    if events:
        conn.dispatch.after_cursor_execute(conn, cursor, plan.sql, parameters, None, False)
    make = (plan.row if plan.results else _row_of(tuple(d[0] for d in described or ())))._make if named else tuple
    if not any(plan.results):
        return [make(row) for row in got]
    return [make(value if process is None else process(value) for value, process in zip(row, plan.results))
            for row in got]


#: The named tuples of text statements' rows, by their columns' names.
_TEXT_ROWS: dict[tuple[str, ...], Any] = {}


def _row_of(names: tuple[str, ...]) -> Any:
    row = _TEXT_ROWS.get(names)
    if row is None:
        row = _TEXT_ROWS[names] = namedtuple("row", names or ["_"], rename=True)  # type: ignore[misc]
    return row


def _plan(conn: Connection, stmt: Executable, params: Mapping[str, Any]) -> _Plan:
    dialect = conn.dialect
    key = (id(stmt), id(dialect), frozenset(params))
    found = _PLANS.get(key)
    if found is not None and found[0] is stmt and found[1] is dialect:
        if isinstance(found[2], str):
            raise Refused(found[2])
        return found[2]
    compiled = stmt.compile(dialect=conn.dialect, column_keys=list(params))  # type: ignore[attr-defined]
    assert isinstance(compiled, SQLCompiler)
    for name, bind in compiled.binds.items():
        if bind.expanding or bind.callable is not None or (name not in params and bind.required):
            _keep(key, stmt, dialect, f"{name}: a parameter that runs through Connection.execute only")
            raise Refused(f"{name}: a parameter that runs through Connection.execute only")
    positional = tuple(compiled.positiontup) if compiled.positional and compiled.positiontup is not None else None
    defaults = {name: bind.value for name, bind in compiled.binds.items() if name not in params}
    binds: dict[str, Callable[[Any], Any]] = {name: process for name, process in compiled._bind_processors.items()
                                              if callable(process)}
    results = tuple(_result_processor(conn, column) for column in compiled._result_columns)
    plan = _Plan(compiled.string, positional, defaults, binds, results,
                 _row_of(tuple(column[0] for column in compiled._result_columns)))
    _keep(key, stmt, dialect, plan)
    return plan


def _keep(key: tuple[int, int, frozenset[str]], stmt: Executable, dialect: Any, plan: _Plan | str) -> None:
    """A plan (or why the statement is refused) kept for the next time."""
    with _LOCK:
        if len(_PLANS) >= _PLANS_MAX:  # engines come and go (tests, commands): the oldest go first
            del _PLANS[next(iter(_PLANS))]
        _PLANS[key] = (stmt, dialect, plan)  # both kept: their ids are never another's


def _result_processor(conn: Connection, column: Sequence[Any]) -> Callable[[Any], Any] | None:
    """The processor of a result column (``_result_columns``: key, name, objects, type)."""
    type_ = column[3]
    process: Callable[[Any], Any] | None = type_._cached_result_processor(conn.dialect, None)
    return process
