"""`pbem archive export`: a static, self-contained HTML archive of a game plus the
`game.json` that `pbem verify` re-checks. Maps are drawn from the spectator view of
each turn, replayed from the log (the log is the truth, not the cached state).

The full archive waits for the end of the game; before it, ``--redacted`` exports what
an observer may see (issue 24.3)."""

from __future__ import annotations

import html
import json
import logging
import shutil
from pathlib import Path
from typing import Any, Mapping, Sequence

from sqlmodel import col, select

from pbem.core.codec import canonical_json
from pbem.db.models import RollRow
from pbem.core.rules import Rules
from pbem.errors import GameStateError, VerifyError
from pbem.render.raster import svg_to_png
from pbem.service import press, results, store, votes
from pbem.service.context import Context
from pbem.service.replay import Step, replay
from pbem.service.verify import REDACTED_FORMAT
from pbem.service.timefmt import show

FORMAT = "pbem-archive-1"
log = logging.getLogger(__name__)


def _iso(value: Any) -> str | None:
    return value.isoformat() if value is not None else None


def archive_data(ctx: Context, game_id: str) -> dict[str, Any]:
    """Everything needed to replay and verify the game; the seed only once revealed."""
    with ctx.session() as session:
        game = store.get_game(session, game_id)
        seats = store.seats(session, game.id)
        phases = []
        for row in store.phases(session, game.id):
            sheets = store.sheets_of_phase(session, game.id, row.seq) if row.resolved_at else []
            rolls = session.exec(select(RollRow).where(RollRow.game_id == game.id, RollRow.phase_seq == row.seq)
                                 .order_by(col(RollRow.counter)))
            phases.append({
                "seq": row.seq, "turn": row.turn, "name": row.name, "awaiting": store.awaiting(row),
                "sealed": row.sealed, "decision": row.decision, "opened_at": _iso(row.opened_at),
                "deadline": _iso(row.deadline), "resolved_at": _iso(row.resolved_at),
                "orders": {s.seat: s.canonical for s in sheets},
                "sources": {s.seat: s.source for s in sheets},
                "receipts": {s.seat: s.receipt for s in sheets},
                "digest": row.orders_digest,
                "rolls": [[r.counter, r.purpose, r.sides, r.value] for r in rolls],
                "state_hash": row.state_hash, "prev_hash": row.prev_hash, "hash": row.hash,
            })
        genesis = phases[0]["prev_hash"] if phases else game.head_hash
        return {
            "format": FORMAT,
            "game": {"id": game.id, "kind": game.kind, "name": game.name, "rules_version": game.rules_version,
                     "options": json.loads(game.options_json), "seats": [s.name for s in seats],
                     "status": game.status, "timezone": game.timezone, "commitment": game.commitment,
                     "seed": game.seed_hex if game.seed_revealed else None,
                     "outcome": json.loads(game.outcome_json) if game.outcome_json else None,
                     "votes": votes.listing(session, game.id),  # DRAW and CONCEDE, withdrawn ones too
                     # who is credited with each seat (public handles, never addresses): ratings verify
                     "players": results.seat_players(session, game.id),
                     "created_at": _iso(game.created_at), "finished_at": _iso(game.finished_at)},
            "initial_state": json.loads(game.initial_state_json),
            "genesis": genesis,
            "phases": phases,
            "head_hash": game.head_hash,
            # the messages between seats, published once the game is over (seats, never addresses)
            **({"press": press.published(session, game)} if game.status == "finished" else {}),
        }


_CSS = """
body{font-family:'DejaVu Sans',Helvetica,Arial,sans-serif;margin:2em auto;max-width:1100px;color:#222;background:#fbfaf7}
h1{margin-bottom:.2em} .meta{color:#555} table{border-collapse:collapse;width:100%}
td,th{border-bottom:1px solid #ddd;padding:.35em .5em;text-align:left;vertical-align:top}
pre{background:#f2f0ea;padding:.8em;overflow-x:auto;white-space:pre-wrap} img{max-width:100%;border:1px solid #ccc}
nav a{margin-right:1em} code{font-size:.9em}
"""


def _page(title: str, body: str) -> str:
    return (f"<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>{html.escape(title)}</title>"
            f"<style>{_CSS}</style></head><body>{body}</body></html>\n")


def _sealed(data: Mapping[str, Any], rules: Rules) -> tuple[str, ...]:
    """The roll purposes whose values stay hidden: the game's secret rolls, until the seed is out."""
    return () if data["game"].get("seed") else tuple(rules.info.secret_rolls)


def _is_sealed(purpose: str, sealed: Sequence[str]) -> bool:
    return bool(sealed) and purpose.startswith(tuple(sealed))


def observer_data(data: Mapping[str, Any], rules: Rules, steps: Sequence[Step]) -> dict[str, Any]:
    """What an observer may see of the game (``--redacted``): the spectator's view of the start
    and of every resolved phase (the game's own redaction point, ``rules.view(state, None)``), the
    public hash chain, and the dice with every sealed value left out. No orders (a sealed phase's,
    or a kept card), no receipts or digests (a short order text could be guessed from them), no
    position, no seed."""
    g = data["game"]
    sealed = _sealed(data, rules)
    phases = []
    for step in steps:
        ph = step.phase
        phases.append({
            "seq": ph["seq"], "turn": ph["turn"], "name": ph["name"], "resolved_at": ph["resolved_at"],
            "seats": sorted(ph["orders"]), "hash": ph["hash"], "prev_hash": ph["prev_hash"],
            "rolls": [[r.counter, r.purpose, r.sides, None if _is_sealed(r.purpose, sealed) else r.value]
                      for r in step.rolls],
            "view": rules.view(step.after, None),
        })
    return {
        "format": REDACTED_FORMAT,
        "game": {"id": g["id"], "kind": g["kind"], "name": g["name"], "rules_version": g["rules_version"],
                 "options": g["options"], "seats": g["seats"], "status": g["status"], "timezone": g["timezone"],
                 "commitment": g["commitment"], "seed": g["seed"], "outcome": g["outcome"],
                 "created_at": g["created_at"], "finished_at": g["finished_at"]},
        "start": rules.view(rules.decode_state(data["initial_state"]), None),
        "phases": phases,
        "head_hash": data["head_hash"],
    }


def export(ctx: Context, game_id: str, out: Path, redacted: bool = False) -> Path:
    """Write the archive folder; returns the path of its index.html.

    The full archive (every order, every die, the positions) waits for the end of the game:
    before it, it would show what only the players may see (a hand, a sealed deployment, a
    shuffle). ``redacted`` writes what an observer may see, at any time."""
    data = archive_data(ctx, game_id)
    from pbem.core import registry

    rules = registry.get(data["game"]["kind"])
    g = data["game"]
    if g["status"] != "finished" and not redacted:
        raise GameStateError(f"game {game_id} has not ended: its archive would show what only its players may see "
                             "(orders, hands, sealed dice); export it when the game ends, or with --redacted for what "
                             "an observer may see")
    sealed = _sealed(data, rules)
    if out.exists():
        shutil.rmtree(out / "maps", ignore_errors=True)
    (out / "maps").mkdir(parents=True, exist_ok=True)
    width = ctx.width

    def draw(state: Any, name: str) -> str:
        view = rules.view(state, None)
        (out / "maps" / f"{name}.png").write_bytes(svg_to_png(rules.render(view), width=width))
        (out / "maps" / f"{name}.json").write_text(json.dumps(view, ensure_ascii=False), encoding="utf-8")
        return rules.describe(view, "en")

    initial = rules.decode_state(data["initial_state"])
    draw(initial, "start")
    rows = []
    steps = []
    problem = ""
    try:
        for step in replay(rules, data):
            steps.append(step)
    except VerifyError as exc:  # export what replays, and say where it stops
        problem = str(exc)
        log.error("archive of %s does not verify: %s", game_id, problem)
    published = observer_data(data, rules, steps) if redacted else data
    (out / "game.json").write_text(json.dumps(published, indent=1, ensure_ascii=False), encoding="utf-8")
    for i, step in enumerate(steps):
        ph = step.phase
        report = draw(step.after, f"phase-{ph['seq']}")
        if redacted:
            orders = (f"<p>Orders from {html.escape(', '.join(sorted(ph['orders'])) or 'nobody')}: "
                      "published when the game ends.</p>")
        else:
            orders = "".join(
                f"<h3>{html.escape(seat)} <small>({html.escape(ph['sources'].get(seat, ''))}, receipt "
                f"<code>{html.escape(ph['receipts'].get(seat, ''))}</code>)</small></h3><pre>{html.escape(text) or '—'}</pre>"
                for seat, text in sorted(ph["orders"].items()))
        dice = "".join(f"<li>#{r.counter} {html.escape(r.purpose)}: d{r.sides} = "
                       + ("<i>sealed until the dice seed is revealed</i>" if _is_sealed(r.purpose, sealed)
                          else f"<b>{r.value}</b>") + "</li>" for r in step.rolls) or "<li>none</li>"
        nav = ['<a href="index.html">index</a>']
        if i > 0:
            nav.append(f'<a href="phase-{steps[i - 1].phase["seq"]}.html">previous</a>')
        if i + 1 < len(steps):
            nav.append(f'<a href="phase-{steps[i + 1].phase["seq"]}.html">next</a>')
        digest = "" if redacted else f"<code>orders digest {ph['digest']}</code><br>"
        body = (f"<nav>{''.join(nav)}</nav><h1>{html.escape(g['name'])} — turn {ph['turn']} ({html.escape(ph['name'])})</h1>"
                f"<p class=meta>resolved {html.escape(show(_parse(ph['resolved_at']), g['timezone']))}</p>"
                f"<img src=\"maps/phase-{ph['seq']}.png\" alt=\"map after turn {ph['turn']}\">"
                f"<h2>Report</h2><pre>{html.escape(report)}</pre><h2>Orders</h2>{orders}"
                f"<h2>Dice</h2><ul>{dice}</ul><h2>Hashes</h2><p>{digest}"
                f"<code>previous {ph['prev_hash']}</code><br><code>this turn {ph['hash']}</code></p>")
        (out / f"phase-{ph['seq']}.html").write_text(_page(f"{g['name']} turn {ph['turn']}", body), encoding="utf-8")
        summary = ("; ".join(sorted(ph["orders"])) if redacted else
                   "; ".join(f"{s}: {t.splitlines()[0] if t else '—'}{' …' if t.count(chr(10)) else ''}"
                             for s, t in sorted(ph["orders"].items())))
        rows.append(f"<tr><td><a href=\"phase-{ph['seq']}.html\">{ph['turn']}</a></td><td>{html.escape(ph['name'])}</td>"
                    f"<td>{html.escape(summary)}</td><td>{len(ph['rolls'])}</td><td><code>{ph['hash'][:12]}</code></td></tr>")
    outcome = ""
    final = rules.outcome(steps[-1].after) if steps and not problem else None
    if final is not None:
        outcome = rules.catalog.text(final.summary, "en")
    elif g.get("outcome"):
        outcome = canonical_json(g["outcome"])
    seed = (f"<p>Dice seed (revealed): <code>{g['seed']}</code></p>" if g.get("seed")
            else "<p>The dice seed is revealed when the game ends.</p>")
    warning = (f"<p style=\"color:#a00\"><b>This archive does not verify:</b> {html.escape(problem)}</p>"
               if problem else "")
    check = ("<p>What an observer may see: no orders, no hidden hand, no sealed die. The full archive, which "
             "<code>pbem verify</code> checks, is published when the game ends.</p>" if redacted else
             f"<p>Check this archive with <code>pbem verify {html.escape(out.name)}</code>.</p>")
    body = (f"<h1>{html.escape(g['name'])}</h1>{warning}<p class=meta>{html.escape(rules.info.title)} · game {g['id']} · "
            f"rules {html.escape(g['rules_version'])} · {html.escape(g['status'])}"
            f"{' · ' + html.escape(outcome) if outcome else ''}</p>"
            f"<p>Seats: {html.escape(', '.join(g['seats']))}</p><p>Dice commitment: <code>{g['commitment']}</code></p>{seed}"
            f"<h2>Start</h2><img src=\"maps/start.png\" alt=\"starting position\"><h2>Turns</h2>"
            f"<table><tr><th>turn</th><th>phase</th><th>{'orders from' if redacted else 'orders'}</th><th>dice</th>"
            f"<th>hash</th></tr>{''.join(rows)}</table>{check}{'' if redacted else _press_html(data)}")
    index = out / "index.html"
    index.write_text(_page(g["name"], body), encoding="utf-8")
    return index


def _press_html(data: Mapping[str, Any]) -> str:
    """The messages between seats, published with the full archive once the game is over (grey
    press still anonymous)."""
    items = data.get("press") or []
    if not items:
        return ""
    rows = [f"<li>Turn {p['turn']}, {html.escape(p['from'] or 'anonymous')} to "
            f"{'every seat' if p['everyone'] else html.escape(', '.join(p['to']))}:<pre>{html.escape(p['text'])}</pre></li>"
            for p in items]
    return f"<h2>Press</h2><ul>{''.join(rows)}</ul>"


def _parse(value: str | None) -> Any:
    from datetime import datetime

    return datetime.fromisoformat(value) if value else None

