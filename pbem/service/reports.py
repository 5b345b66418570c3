"""Turn reports: drawn after the resolution has committed, queued in a transaction of
their own.

A resolution records a `ReportJob` in its transaction. `prepare` builds every seat's
report (one per holder of the seat, in the holder's language) from the position
recorded for that phase (the game may have moved on since),
the maps are drawn (the slow part: in a worker process under the daemon, inline
otherwise), and `finish` queues every report mail and marks the job done in one
transaction. A crash before that commit leaves the job pending: it is built again and
nothing is sent twice. Mail keeps flowing while maps are drawn.
"""

from __future__ import annotations

import asyncio
import json
import logging
from concurrent.futures import Executor
from dataclasses import dataclass, field
from typing import Any, Callable, Mapping, Sequence

from sqlmodel import Session, col, select

from pbem.core.dice import Roll
from pbem.core.i18n import Catalog
from pbem.core.purposes import purpose_text
from pbem.core.rules import Rules, View, roll_notes, seat_label
from pbem.db.models import Game, PhaseRow, Player, ReportJob, RollRow, Seat, SheetRow
from pbem.faults import checkpoint
from pbem.mail.compose import Attachment
from pbem.service import calendar, holders, mailer, observers, store
from pbem.service.context import Context
from pbem.service.plurals import listed, tn
from pbem.service.texts import t, text_of
from pbem.service.timefmt import show

log = logging.getLogger(__name__)

#: ``render(svg, width) -> png``: the rasteriser, or a function running it elsewhere.
Renderer = Callable[[str, int], bytes]


@dataclass
class Draft:
    """One holder's report before its map is drawn."""

    seat: str
    address: str
    subject: str
    text: str
    view: View
    key: str  # the drawing it needs
    stem: str
    extra: list[Attachment] = field(default_factory=list)  # the next deadline's calendar event
    kind: str = "report"  # "observer": a spectator's report (`pbem.service.observers`), no seat


@dataclass
class Prepared:
    job_id: int
    game_id: str
    drafts: list[Draft] = field(default_factory=list)
    svgs: dict[str, str] = field(default_factory=dict)  # drawing key -> SVG
    observed: dict[int, int] = field(default_factory=dict)  # observer id -> the last phase its report shows


def rolls_text(rolls: Sequence[Roll], lang: str, sealed: Sequence[str] = (), catalog: Catalog | None = None,
               notes: Mapping[int, str] | None = None) -> list[str]:
    """Every roll with its purpose (architecture 2.5), in the reader's language through the game's
    ``catalog``; a roll whose purpose begins with one of ``sealed`` keeps its value to itself (a
    shuffle: the value would show a hand or a pile, 2.4)."""
    if not rolls:
        return [t("report.no_rolls", lang)]

    def why(r: Roll) -> str:
        return purpose_text(catalog, r.purpose, lang) if catalog is not None else r.purpose

    def shown(r: Roll) -> str:
        line = t("report.roll", lang, counter=r.counter, purpose=why(r), sides=r.sides, value=r.value)
        note = (notes or {}).get(r.counter)  # what the value meant: a draw's number (Arditi)
        return f"{line} → {note}" if note else line

    return [t("report.roll_sealed", lang, counter=r.counter, purpose=why(r), sides=r.sides)
            if sealed and r.purpose.startswith(tuple(sealed)) else shown(r) for r in rolls]


def sealed_rolls(game: Game, rules: Rules) -> tuple[str, ...]:
    """The purposes whose values players may not read yet: the game's secret rolls, until the seed is out."""
    return () if game.seed_revealed else tuple(rules.info.secret_rolls)


def stem(turn: int, seat: str, step: int = 1) -> str:
    """A report's attachments are ``<game>-turn-4-north.png`` and ``.json``: the turn and the seat;
    a turn of several phases (Arditi's moves, Seattle's steps) numbers its later reports
    (``a1-turn-1-step-2-red.png``), so that saving them keeps each."""
    return f"turn-{turn}-{seat}" if step <= 1 else f"turn-{turn}-step-{step}-{seat}"


def step_in_turn(session: Session, row: PhaseRow) -> int:
    """Which of its turn's phases ``row`` is (1 for the first): the phases resolved one after another."""
    return len(session.exec(select(PhaseRow.id).where(PhaseRow.game_id == row.game_id, PhaseRow.turn == row.turn,
                                                      col(PhaseRow.seq) <= row.seq)).all())


def _step_among(every: Sequence[PhaseRow], row: PhaseRow) -> int:
    """`step_in_turn` of ``row`` from every phase of its game, read already."""
    return sum(1 for r in every if r.turn == row.turn and r.seq <= row.seq)


def _filed(session: Session, game_id: str, first: int, last: int) -> dict[int, list[SheetRow]]:
    """`store.sheets_of_phase` of the phases ``first`` to ``last``, in one query."""
    out: dict[int, list[SheetRow]] = {seq: [] for seq in range(first, last + 1)}
    stmt = (select(SheetRow).where(SheetRow.game_id == game_id, col(SheetRow.phase_seq) >= first,
                                   col(SheetRow.phase_seq) <= last, col(SheetRow.superseded).is_(False))
            .order_by(col(SheetRow.id)))
    for row in session.exec(stmt):
        out.setdefault(row.phase_seq, []).append(row)
    return out


def _zones(session: Session, game: Game, addresses: Sequence[str]) -> dict[str, str]:
    """`timefmt.zone_of` of each address, the players read in one query."""
    wanted = {a: a.strip().lower() for a in addresses}
    own = {p.address: p.timezone for p in session.exec(
        select(Player).where(col(Player.address).in_(sorted(set(wanted.values())))))} if wanted else {}
    return {a: own.get(addr, "") or game.timezone for a, addr in wanted.items()}


def report_what(rules: Rules, state: Any, resolved: Sequence[PhaseRow], nxt: PhaseRow | None, final: bool,
                lang: str) -> str:
    """The subject's words after ``turn N —``: whose orders the report resolves (N is their
    turn, as in HISTORY N) and what comes next, with the next turn's number as the body says it:
    ``report: red played; next: turn 1, blue to move (die: 3)``."""
    if final:
        return t("subject.final", lang)
    done = list(dict.fromkeys(s for r in resolved for s in store.awaiting(r)))
    if nxt is None:
        return t("subject.report", lang)
    label = rules.phase(state).label
    after = text_of(label, lang, rules.catalog) if label is not None else nxt.name
    if not done:
        return t("subject.report_next", lang, turn=nxt.turn, phase=after)
    return tn("subject.report_played", len(done), lang, seats=listed([seat_label(rules, s, lang) for s in done], lang),
              turn=nxt.turn, phase=after)


def pending(ctx: Context, game_id: str | None = None) -> list[int]:
    with ctx.session() as session:
        stmt = select(ReportJob.id).where(ReportJob.status == "pending").order_by(col(ReportJob.id))
        if game_id is not None:
            stmt = stmt.where(ReportJob.game_id == game_id)
        return [i for i in session.exec(stmt) if i is not None]


def prepare(ctx: Context, job_id: int) -> Prepared | None:
    """Everything but the pictures; None when the job is already done."""
    with ctx.session() as session:
        found = session.exec(select(ReportJob, Game).where(ReportJob.id == job_id, Game.id == ReportJob.game_id)).first()
        if found is None or found[0].status != "pending":
            return None
        job, game = found
        rules = store.rules_of(game)
        every = store.phases(session, game.id)
        rows = [r for r in every if job.first_seq <= r.seq <= job.last_seq + 1]
        resolved = [r for r in rows if r.seq <= job.last_seq]
        nxt = next((r for r in rows if r.seq == job.last_seq + 1), None)
        step = _step_among(every, resolved[-1])
        state = rules.decode_state(json.loads(resolved[-1].state_json))
        rolls = [Roll(r.counter, r.phase_seq, r.purpose, r.sides, r.value) for r in session.exec(
            select(RollRow).where(RollRow.game_id == game.id, col(RollRow.phase_seq) >= job.first_seq,
                                  col(RollRow.phase_seq) <= job.last_seq).order_by(col(RollRow.counter)))]
        filed = _filed(session, game.id, job.first_seq, job.last_seq)
        final = nxt is None and game.status == "finished"
        out = Prepared(job_id, game.id)
        seats = store.seats(session, game.id)
        roster = holders.Roster(session, game, ctx.config.server.domain)
        recipients = {seat.name: roster.recipients(seat) for seat in seats}  # a team: each player in their language
        zones = _zones(session, game, [h.address for rows_ in recipients.values() for h in rows_])
        for seat in seats:
            view = rules.view(state, seat.name)
            for holder in recipients[seat.name]:
                lang = holder.language
                key = mailer.map_key(view, lang)
                if key not in out.svgs:
                    out.svgs[key] = rules.render({**view, "lang": lang})
                what = report_what(rules, state, resolved, nxt, final, lang)
                text = report_text(session, ctx, game, rules, seat, view, state, resolved, rolls, nxt, final, lang,
                                   zone=zones[holder.address], filed=filed, step=step)
                out.drafts.append(Draft(seat.name, holder.address, mailer.subject(game, what, resolved[-1].turn, lang),
                                        text, view, key, stem(resolved[-1].turn, seat.name, step),
                                        calendar.attachment(ctx, game, nxt, lang)))
        # the observers' reports, from the spectator view, held back by the game's delay (a game
        # nobody watches: one query, no phase read)
        drafts, out.observed = observers.drafts(session, ctx, game, rules, job.last_seq, final, out.svgs)
        out.drafts += drafts
        return out


def finish(ctx: Context, prepared: Prepared, pngs: dict[str, bytes]) -> bool:
    """Queue the report mails and mark the job done, in one transaction."""
    checkpoint("reports.before-finish")
    with ctx.session() as session:
        found = session.exec(select(ReportJob, Game).where(ReportJob.id == prepared.job_id,
                                                           Game.id == ReportJob.game_id).with_for_update(of=ReportJob)).first()
        if found is None or found[0].status != "pending":
            return False  # another worker finished it
        job, game = found
        roster = holders.Roster(session, game, ctx.config.server.domain)  # the thread roots, read once
        for d in prepared.drafts:
            mailer.queue(session, ctx, to=d.address, subject=d.subject, text=d.text, kind=d.kind, game=game,
                         attachments=[*mailer.attachments(game, d.view, d.stem, pngs[d.key]), *d.extra],
                         seat=d.seat or None, roster=roster)
        if prepared.observed:
            observers.mark_seen(session, prepared.observed)
        job.status, job.done_at = "done", ctx.now()
        session.add(job)
        session.commit()
        return True


def _inline(ctx: Context) -> Renderer:
    from pbem.render.raster import svg_to_png

    return lambda svg, width: svg_to_png(svg, width=width)


def run_pending(ctx: Context, game_id: str | None = None, render: Renderer | None = None) -> int:
    """Build and queue every pending report (inline); returns how many jobs were done."""
    draw = render or _inline(ctx)
    done = 0
    for job_id in pending(ctx, game_id):
        prepared = prepare(ctx, job_id)
        if prepared is None:
            continue
        pngs = {key: draw(svg, ctx.width) for key, svg in prepared.svgs.items()}
        done += finish(ctx, prepared, pngs)
    return done


async def run_pending_async(ctx: Context, executor: Executor | None = None) -> int:
    """The daemon's report stage: every pending job's maps are handed to ``executor`` (a
    process pool) at once, and each job is queued as soon as its maps are drawn, so the
    database work overlaps the drawing; the event loop stays free for mail meanwhile."""
    from pbem.render.raster import svg_to_png

    loop = asyncio.get_running_loop()
    jobs: list[tuple[Prepared, list[str], list[asyncio.Future[bytes]]]] = []
    for job_id in await asyncio.to_thread(pending, ctx):
        prepared = await asyncio.to_thread(prepare, ctx, job_id)
        if prepared is None:
            continue
        keys = list(prepared.svgs)
        futures = [loop.run_in_executor(executor, _draw, svg_to_png, prepared.svgs[k], ctx.width) for k in keys]
        jobs.append((prepared, keys, futures))
    done = 0
    for prepared, keys, futures in jobs:
        pictures = await asyncio.gather(*futures)
        done += await asyncio.to_thread(finish, ctx, prepared, dict(zip(keys, pictures)))
    return done


def _draw(fn: Callable[..., bytes], svg: str, width: int) -> bytes:
    return fn(svg, width=width)


def report_text(session: Session, ctx: Context, game: Game, rules: Rules, seat: Seat, view: dict[str, Any],
                state: Any, resolved: Sequence[PhaseRow], rolls: Sequence[Roll], nxt: PhaseRow | None,
                final: bool, lang: str, zone: str | None = None, *,
                filed: Mapping[int, Sequence[SheetRow]] | None = None, step: int | None = None) -> str:
    """One holder's report; ``zone``: the reader's (default: the game's). ``filed`` (the
    sheets of the resolved phases by phase) and ``step`` (`step_in_turn` of the last one):
    read once for every report of the job."""
    lines = [t("report.head", lang, name=game.name, title=rules.info.title, game=game.id,
               seat=seat_label(rules, seat.name, lang)), ""]
    done = list(dict.fromkeys(s for r in resolved for s in store.awaiting(r)))
    if done:  # the turn resolved, as the subject, HISTORY and the TURN line number it
        lines += [tn("report.resolved", len(done), lang, turn=resolved[-1].turn,
                     seats=listed([seat_label(rules, s, lang) for s in done], lang)), ""]
    for row in resolved:
        for sheet in filed[row.seq] if filed is not None else store.sheets_of_phase(session, game.id, row.seq):
            if sheet.source == "default":
                lines.append(t("report.defaulted", lang, seat=sheet.seat, turn=row.turn,
                               orders=sheet.canonical.replace("\n", "; ") or "—"))
    lines += [rules.describe(view, lang), "", t("section.dice", lang)]
    lines += ["  " + r for r in rolls_text(rolls, lang, sealed_rolls(game, rules), rules.catalog,
                                               roll_notes(rules, view, rolls, lang))]
    lines.append("")
    lines.append(t("report.chain", lang, hash=resolved[-1].hash[:16], commitment=game.commitment))
    if step is None:
        step = step_in_turn(session, resolved[-1])
    name = f"{game.id}-{stem(resolved[-1].turn, seat.name, step)}"
    lines.append(t("report.attached", lang, png=f"{name}.png", json=f"{name}.json"))
    if final:
        lines += ["", t("report.finished", lang), t("report.seed", lang, seed=game.seed_hex, commitment=game.commitment)]
    elif nxt is not None:
        waiting = store.awaiting(nxt)
        label = rules.phase(state).label
        phase_name = text_of(label, lang, rules.catalog) if label is not None else nxt.name
        lines += ["", t("report.next", lang, turn=nxt.turn, phase=phase_name, seats=", ".join(seat_label(rules, w, lang) for w in waiting),
                        deadline=show(nxt.deadline, zone or game.timezone, lang))]
        if seat.name in waiting:
            lines += ["", t("section.your_orders", lang),
                      t("report.howto", lang, game=game.id, seat=seat.name, turn=nxt.turn,
                        address=ctx.config.server.address),
                      rules.template(state, seat.name, lang)]
    return "\n".join(lines)
