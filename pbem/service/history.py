"""HISTORY: the game's resolved turns as one seat may see them — for each, the orders, what
came of them (the seat's own report of the position after it) and the dice.

Without a turn number the mail lists every resolved turn, newest last; a long game gives the
last turns that fit in `BUDGET` characters (at most `MAX_TURNS`) and says how to ask for an
earlier one (``HISTORY <turn>``).
"""

from __future__ import annotations

import json
from collections.abc import Sequence

from sqlmodel import Session, col, select

from pbem.core.dice import Roll
from pbem.core.rules import Rules
from pbem.db.models import Game, PhaseRow, RollRow, Seat
from pbem.service import store
from pbem.service.reports import rolls_text, sealed_rolls
from pbem.service.texts import t, text_of
from pbem.service.timefmt import show

#: The most turns one HISTORY mail lists.
MAX_TURNS = 20
#: Characters of turns one HISTORY mail lists at most (one turn is always listed whole).
BUDGET = 40_000


def phase_label(rules: Rules, game: Game, rows: Sequence[PhaseRow], row: PhaseRow, lang: str) -> str:
    """The phase's name as the engine words it (``North to move``), from the position before it."""
    before = next((r for r in reversed(rows) if r.seq < row.seq and r.state_json), None)
    data = before.state_json if before is not None else game.initial_state_json
    try:
        label = rules.phase(rules.decode_state(json.loads(data))).label if data else None
    except Exception:  # an old position the engine no longer reads: its stored name will do
        label = None
    return text_of(label, lang, rules.catalog) if label is not None else row.name


def paragraphs(text: str) -> list[str]:
    """A report's text in its blank-line separated paragraphs."""
    out: list[str] = []
    for block in text.split("\n\n"):
        if block.strip():
            out.append(block.strip("\n"))
    return out


def result_of(rules: Rules, row: PhaseRow, seat: Seat, lang: str) -> list[str]:
    """The position after ``row`` as ``seat`` sees it: the seat's report of that moment."""
    if not row.state_json:
        return []
    return paragraphs(rules.describe(rules.view(rules.decode_state(json.loads(row.state_json)), seat.name), lang))


def turn_text(session: Session, game: Game, rules: Rules, rows: Sequence[PhaseRow], row: PhaseRow, seat: Seat,
              lang: str, before: Sequence[str] = ()) -> list[str]:
    """One resolved phase: its orders (a sealed phase's other sheets stay hidden), what came of
    it as ``seat`` sees it, and its dice (secret rolls sealed until the seed is out). ``before``:
    the paragraphs of the previous result; those that did not change (a board where nothing
    moved, a legend) are left out, so a long history says what each turn changed."""
    lines = [t("history.phase", lang, turn=row.turn, phase=phase_label(rules, game, rows, row, lang),
               resolved=show(row.resolved_at, game.timezone, lang), hash=row.hash[:16])]
    for sheet in store.sheets_of_phase(session, game.id, row.seq):
        if sheet.seat == seat.name or not row.sealed:
            orders = sheet.canonical.replace("\n", "; ") or "—"
            lines.append("  " + t("history.orders", lang, seat=sheet.seat, orders=orders, receipt=sheet.receipt))
    seen = set(before)
    changed = [p for p in result_of(rules, row, seat, lang) if p not in seen]
    if changed:
        lines += ["  " + t("history.events", lang)]
        lines += [f"    {x}".rstrip() for p in changed for x in (*p.splitlines(), "")][:-1]
    rolls = session.exec(select(RollRow).where(RollRow.game_id == game.id, RollRow.phase_seq == row.seq)
                         .order_by(col(RollRow.counter)))
    lines += ["  " + t("history.dice", lang)]
    lines += ["    " + x for x in rolls_text([Roll(x.counter, x.phase_seq, x.purpose, x.sides, x.value) for x in rolls],
                                             lang, sealed_rolls(game, rules), rules.catalog)]
    return lines


def history_text(session: Session, game: Game, seat: Seat, lang: str, turn: int | None = None) -> str | None:
    """The HISTORY answer; None when ``turn`` names no resolved turn."""
    rules = store.rules_of(game)
    rows = store.phases(session, game.id)
    resolved = [r for r in rows if r.resolved_at is not None]
    if turn is not None:
        resolved = [r for r in resolved if r.turn == turn]
        if not resolved:
            return None
    kept: list[list[str]] = []
    size = 0
    for i in range(len(resolved) - 1, -1, -1):  # the newest turns first, while they fit (no work beyond)
        earlier = resolved[i - 1] if turn is None and i > 0 else None
        before = result_of(rules, earlier, seat, lang) if earlier is not None else []
        block = turn_text(session, game, rules, rows, resolved[i], seat, lang, before)
        length = sum(len(x) + 1 for x in block)
        if kept and turn is None and (len(kept) >= MAX_TURNS or size + length > BUDGET):
            # the first turn shown is shown whole: the one before it is not
            kept[0] = turn_text(session, game, rules, rows, resolved[i + 1], seat, lang)
            break
        kept.insert(0, block)
        size += length
    total = len(resolved)
    lines = [t("history.head", lang, game=game.id, name=game.name)]
    if not resolved:
        lines += ["", t("history.none", lang)]
    if len(kept) < total:
        first_kept = resolved[total - len(kept)]
        lines += ["", t("history.window", lang, shown=len(kept), total=total,
                        first=max(first_kept.turn - 1, resolved[0].turn))]
    for block in kept:
        lines += ["", *block]
    return "\n".join(lines)
