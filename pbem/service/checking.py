"""`pbem orders check`: the game master's look at an order text before (or instead of)
mailing it. It says what it checked against — the game, the seat, the turn and phase —
honours the file's TURN line as the server would, and lists the errors and, apart, the
warnings, in the chosen language."""

from __future__ import annotations

from typing import Any

from pbem.core import registry
from pbem.core.dice import VerifiableDice
from pbem.core.rules import Rules
from pbem.errors import UserError
from pbem.mail.envelope import parse_envelope
from pbem.service import store
from pbem.service.inbound import order_text
from pbem.service.texts import t, text_of


def _first_phase(rules: Rules) -> Any:
    """A new game's first position where a seat gives orders (the server's set-up steps
    run with a fixed seed: any legal position will do offline)."""
    seats = list(rules.info.seats)[: max(rules.info.min_seats, 2)]
    state = rules.new_game(seats, {k: v.default for k, v in rules.info.options.items()})
    counter = 0
    while not rules.phase(state).awaiting and rules.outcome(state) is None:
        dice = VerifiableDice(b"pbem orders check", "check", counter, "", counter)
        state = rules.resolve(state, {}, dice).state
        counter = dice.next_counter
    return state


def check_file(ctx: Any, kind: str, text: str, *, game_id: str | None, seat: str | None,
               lang: str = "en") -> tuple[bool, str]:
    """Check ``text`` (an order block, a whole mail, or bare order lines) for ``seat``:
    against ``game_id``'s current phase, or without it a new game's first phase."""
    rules = registry.get(kind)
    env = parse_envelope(text)
    block = env.game is not None or bool(env.order_lines)
    body = order_text(env) if block else text
    turn = env.turn
    if not block:
        turn, body = _bare_turn(text)
    seat = (seat or (env.seat if block else None) or "").lower() or None
    if game_id:
        with ctx.session() as session:
            game = store.get_game(session, game_id)
            if game.kind != kind:
                raise UserError(f"{game_id} is a {game.kind} game, not {kind}")
            state = store.state_of(game)
        against = f"game {game_id} ({kind})"
    else:
        state = _first_phase(rules)
        named = f"; the file names {env.game}: give --game {env.game} to check against it" if env.game else ""
        against = f"a new {kind} game (no --game given{named})"
    phase = rules.phase(state)
    seat = seat or (phase.awaiting[0] if phase.awaiting else rules.info.seats[0])
    label = text_of(phase.label, lang, rules.catalog) if phase.label is not None else phase.name
    out = [f"Checked against: {against}, seat {seat}, turn {phase.turn} ({label})"]
    if block:
        lines = [f"GAME {env.game}" if env.game else "", f"SEAT {env.seat}" if env.seat else "",
                 f"TURN {env.turn}" if env.turn is not None else ""]
        out.append("The file's block: " + (", ".join(n for n in lines if n) or "no GAME, SEAT or TURN line"))
    elif turn is not None:
        out.append(f"The file's TURN line: TURN {turn}")
    problems: list[str] = []
    if env.game is not None and game_id and env.game.lower() != game_id.lower():
        problems.append(f"the file is for game {env.game}, not {game_id}: the server would apply it to {env.game}")
    if turn is not None and turn != phase.turn:
        problems.append(f"the file says TURN {turn}, but the phase checked is turn {phase.turn}: "
                        + ("the server would refuse the mail" if game_id
                           else "give --game to check against a running game"))
    if seat not in phase.awaiting:
        problems.append(f"turn {phase.turn} ({label}) awaits orders from {', '.join(phase.awaiting) or 'nobody'}, "
                        f"not from {seat}: the server would refuse the mail")
    sheet = rules.parse_orders(state, seat, body)
    counting = "line N of the block (GAME = line 1)" if block else "line N of the file"
    out.append(f"Line numbers: {counting}.")
    out.append("")
    ok = sheet.ok and not problems
    errors = [d for d in sheet.diagnostics if d.is_error]
    out.append(f"Result: {'OK' if ok else 'NOT accepted'} — {_count(len(sheet.orders), 'order')}, "
               f"{_count(len(errors), 'error')}, {_count(len(sheet.diagnostics) - len(errors), 'warning')}"
               + (f", {_count(len(problems), 'problem')} with the {'block' if block else 'file'}" if problems else ""))
    out += [f"  problem: {p}" for p in problems]
    if sheet.ok:
        out += ["", "Orders as the server files them:", *("  " + x for x in sheet.canonical().splitlines())]
    out += _listed("Errors:", [d for d in sheet.diagnostics if d.is_error], rules, lang)
    out += _listed("Warnings (they alone do not stop the orders):",
                   [d for d in sheet.diagnostics if not d.is_error], rules, lang)
    return ok, "\n".join(out)


def _bare_turn(text: str) -> tuple[int | None, str]:
    """Bare order lines may start with ``TURN n`` (``TURNO n``), the guard a block carries:
    the turn, and the text with that line left blank so the lines keep their numbers."""
    lines = text.split("\n")
    for i, line in enumerate(lines):
        words = line.split("#", 1)[0].split()
        if not words:
            continue
        if len(words) == 2 and words[0].rstrip(":").lower() in ("turn", "turno") and words[1].isdigit():
            lines[i] = ""
            return int(words[1]), "\n".join(lines)
        break
    return None, text


def _count(n: int, word: str) -> str:
    return f"{n} {word}" + ("" if n == 1 else "s")


def _listed(head: str, found: list[Any], rules: Rules, lang: str) -> list[str]:
    if not found:
        return []
    out = ["", head]
    for d in found:
        where = f"line {d.line}" if d.line else "the orders"
        out.append(f"  {where}: {d.text}" if d.text else f"  {where}")
        out.append("      " + text_of(d.message, lang, rules.catalog))
        if d.suggestion is not None:
            out.append("      " + t("reply.suggestion", lang, text=text_of(d.suggestion, lang, rules.catalog)))
    return out

