"""`pbem orders check`: the game master's look at an order text before (or instead of)
mailing it. It says what it checked against — the game, the seat, the turn and phase —
honours the file's TURN line as the server would, and lists the errors and, apart, the
warnings, all in the chosen language (``--lang``)."""

from __future__ import annotations

from typing import Any

from pbem.core import registry
from pbem.core.dice import VerifiableDice
from pbem.core.rules import Rules
from pbem.errors import UserError
from pbem.mail.envelope import parse_envelope
from pbem.service import store
from pbem.service.inbound import order_text
from pbem.service.plurals import tn
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
        against = t("check.against_game", lang, game=game_id, kind=kind)
    else:
        state = _first_phase(rules)
        named = t("check.named", lang, game=env.game) if env.game else ""
        against = t("check.against_new", lang, kind=kind, named=named)
    phase = rules.phase(state)
    seat = seat or (phase.awaiting[0] if phase.awaiting else rules.info.seats[0])
    label = text_of(phase.label, lang, rules.catalog) if phase.label is not None else phase.name
    out = [t("check.against", lang, against=against, seat=seat, turn=phase.turn, phase=label)]
    if block:
        lines = [f"GAME {env.game}" if env.game else "", f"SEAT {env.seat}" if env.seat else "",
                 f"TURN {env.turn}" if env.turn is not None else ""]
        out.append(t("check.block", lang, lines=", ".join(n for n in lines if n) or t("check.block_none", lang)))
    elif turn is not None:
        out.append(t("check.turn_line", lang, turn=turn))
    problems: list[str] = []
    if env.game is not None and game_id and env.game.lower() != game_id.lower():
        problems.append(t("check.other_game", lang, named=env.game, game=game_id))
    if turn is not None and turn != phase.turn:
        problems.append(t("check.other_turn", lang, said=turn, turn=phase.turn,
                          then=t("check.refused" if game_id else "check.give_game", lang)))
    if seat not in phase.awaiting:
        problems.append(t("check.not_awaited", lang, turn=phase.turn, phase=label, seat=seat,
                          awaited=", ".join(phase.awaiting) or t("check.nobody", lang)))
    sheet = rules.parse_orders(state, seat, body)
    out.append(t("check.lines_block" if block else "check.lines_file", lang))
    out.append("")
    ok = sheet.ok and not problems
    errors = [d for d in sheet.diagnostics if d.is_error]
    where = "check.problems_block" if block else "check.problems_file"
    out.append(t("check.result", lang, verdict=t("check.ok" if ok else "check.not_ok", lang),
                 orders=tn("check.orders", len(sheet.orders), lang), errors=tn("check.errors", len(errors), lang),
                 warnings=tn("check.warnings", len(sheet.diagnostics) - len(errors), lang),
                 problems=tn(where, len(problems), lang) if problems else ""))
    out += [t("check.problem", lang, text=p) for p in problems]
    if sheet.ok:
        out += ["", t("check.filed", lang), *("  " + x for x in sheet.canonical().splitlines())]
    out += _listed(t("check.errors_head", lang), [d for d in sheet.diagnostics if d.is_error], rules, lang)
    out += _listed(t("check.warnings_head", lang), [d for d in sheet.diagnostics if not d.is_error], rules, lang)
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


def _listed(head: str, found: list[Any], rules: Rules, lang: str) -> list[str]:
    if not found:
        return []
    out = ["", head]
    for d in found:
        where = t("check.line", lang, line=d.line) if d.line else t("check.the_orders", lang)
        out.append(f"  {where}: {d.text}" if d.text else f"  {where}")
        out.append("      " + text_of(d.message, lang, rules.catalog))
        if d.suggestion is not None:
            out.append("      " + t("reply.suggestion", lang, text=text_of(d.suggestion, lang, rules.catalog)))
    return out

