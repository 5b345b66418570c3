"""`pbem orders check`: the diagnostics a mail reply would carry, offline."""

from __future__ import annotations

from typing import Any

from pbem.core import registry
from pbem.core.dice import VerifiableDice
from pbem.mail.envelope import parse_envelope
from pbem.service import store
from pbem.service.inbound import diagnostics_text, order_text


def check_file(ctx: Any, kind: str, text: str, *, game_id: str | None, seat: str | None,
               lang: str = "en") -> tuple[bool, str]:
    """Check ``text`` (an order block or a whole mail) for ``seat``.

    Without a game, the orders are checked against a new game's first phase.
    """
    rules = registry.get(kind)
    env = parse_envelope(text)
    if env.game is not None or env.order_lines:
        body = order_text(env)
        seat = seat or env.seat
    else:
        body = text
    if game_id:
        with ctx.session() as session:
            game = store.get_game(session, game_id)
            state = store.state_of(game)
    else:
        seats = list(rules.info.seats)[: max(rules.info.min_seats, 2)]
        state = rules.new_game(seats, {k: v.default for k, v in rules.info.options.items()})
        counter = 0
        while not rules.phase(state).awaiting and rules.outcome(state) is None:
            # Server steps (set-up draws) with a fixed seed: any legal position will do offline.
            dice = VerifiableDice(b"pbem orders check", "check", counter, "", counter)
            state = rules.resolve(state, {}, dice).state
            counter = dice.next_counter
    phase = rules.phase(state)
    seat = (seat or (phase.awaiting[0] if phase.awaiting else rules.info.seats[0])).lower()
    sheet = rules.parse_orders(state, seat, body)
    if sheet.ok:
        lines = [f"OK: {len(sheet.orders)} order(s) for {seat}, turn {phase.turn} ({phase.name}):"]
        lines += ["  " + line for line in sheet.canonical().splitlines()]
        warnings = [d for d in sheet.diagnostics if not d.is_error]
        from pbem.service.texts import text_of

        lines += [f"warning, line {d.line}: {text_of(d.message, lang, rules.catalog)}" for d in warnings]
        return True, "\n".join(lines)

    class _Game:  # diagnostics_text only needs the id
        id = game_id or "-"

    return False, diagnostics_text(rules, sheet, lang, _Game(), phase.turn, seat, None)  # type: ignore[arg-type]
