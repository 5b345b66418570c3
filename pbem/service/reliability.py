"""How reliable a player is, from what the database already records (docs/club.md,
"Reliability"): for a game master deciding whom to seat in a six-player Arditi.

* games started: games the player held a seat in once they began (each game once);
* games finished: of those, games that ended with the player still holding the seat;
* deadlines met: phases of a held seat for which orders came by mail from the player's own
  address; missed: phases for which the seat's default orders were played while they held it;
* seats abandoned: seats the player left (LEAVE) or lost to missed deadlines while holding them;
* median time to orders: from the opening of a phase (the report that asked for orders) to the
  player's first orders for it.
"""

from __future__ import annotations

import statistics
from collections import defaultdict
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from typing import Iterable

from sqlmodel import Session, col, select

from pbem.db.models import Game, Holder, PhaseRow, Seat, SheetRow


@dataclass
class Reliability:
    started: int = 0
    finished: int = 0
    met: int = 0
    missed: int = 0
    abandoned: int = 0
    answer_seconds: list[float] = field(default_factory=list)

    @property
    def median(self) -> timedelta | None:
        """The median time from report to orders; None before any orders."""
        return timedelta(seconds=statistics.median(self.answer_seconds)) if self.answer_seconds else None

    @property
    def share_met(self) -> float | None:
        total = self.met + self.missed
        return self.met / total if total else None

    def as_dict(self) -> dict[str, object]:
        median = self.median
        return {"games_started": self.started, "games_finished": self.finished, "deadlines_met": self.met,
                "deadlines_missed": self.missed, "seats_abandoned": self.abandoned,
                "share_met": round(self.share_met, 3) if self.share_met is not None else None,
                "median_hours_to_orders": round(median.total_seconds() / 3600, 2) if median is not None else None}


_EPOCH = datetime.min.replace(tzinfo=timezone.utc)


def _within(moment: datetime | None, since: datetime | None, until: datetime | None) -> bool:
    return moment is not None and (since or _EPOCH) <= moment and (until is None or moment <= until)


def of_players(session: Session, player_ids: Iterable[int] | None = None) -> dict[int, Reliability]:
    """Each player's figures (every player with a seat, or only ``player_ids``), in a few queries."""
    stmt = select(Holder, Seat, Game).where(Holder.seat_id == Seat.id, Seat.game_id == Game.id,
                                            Game.status != "open")
    wanted = set(player_ids) if player_ids is not None else None
    if wanted is not None:
        stmt = stmt.where(col(Holder.player_id).in_(wanted))
    rows = list(session.exec(stmt.order_by(col(Holder.id))))
    game_ids = {g.id for _, _, g in rows}
    sheets: dict[tuple[str, str], list[SheetRow]] = defaultdict(list)
    opened: dict[tuple[str, int], datetime | None] = {}
    if game_ids:
        for sheet in session.exec(select(SheetRow).where(col(SheetRow.game_id).in_(game_ids))):
            sheets[(sheet.game_id, sheet.seat)].append(sheet)
        for phase in session.exec(select(PhaseRow).where(col(PhaseRow.game_id).in_(game_ids))):
            opened[(phase.game_id, phase.seq)] = phase.opened_at
    out: dict[int, Reliability] = defaultdict(Reliability)
    started: dict[int, set[str]] = defaultdict(set)
    finished: dict[int, set[str]] = defaultdict(set)
    for holder, seat_row, game in rows:
        figures = out[holder.player_id]
        started[holder.player_id].add(game.id)
        if game.status == "finished" and holder.status == "active" and seat_row.status == "active":
            finished[holder.player_id].add(game.id)
        if holder.status == "left" or (holder.status == "active" and seat_row.status == "abandoned"):
            figures.abandoned += 1
        mine = [s for s in sheets[(game.id, seat_row.name)] if _within(s.received_at, holder.joined_at, holder.left_at)]
        by_mail: dict[int, datetime] = {}
        for s in mine:
            if s.source == "mail" and s.sender.lower() == holder.address and s.received_at is not None:
                first = by_mail.get(s.phase_seq)
                by_mail[s.phase_seq] = s.received_at if first is None else min(first, s.received_at)
        figures.met += len(by_mail)
        figures.missed += len({s.phase_seq for s in mine if s.source == "default"})
        for seq, when in by_mail.items():
            start = opened.get((game.id, seq))
            if start is not None:
                figures.answer_seconds.append(max(0.0, (when - start).total_seconds()))
    for player_id, figures in out.items():
        figures.started, figures.finished = len(started[player_id]), len(finished[player_id])
    return dict(out)


def of_player(session: Session, player_id: int) -> Reliability:
    return of_players(session, [player_id]).get(player_id, Reliability())


def lines(session: Session, player_ids: Iterable[int | None], lang: str) -> list[str]:
    """One line per seated player for GAMES (``club.games_reliability``): by name or public
    handle, never by address (the answer may go to anybody who writes)."""
    from pbem.db.models import Player
    from pbem.service.results import handle
    from pbem.service.texts import t

    wanted = [p for p in player_ids if p is not None]
    figures = of_players(session, wanted)
    out = []
    for pid in wanted:
        player = session.get(Player, pid)
        if player is None:
            continue
        f = figures.get(pid, Reliability())
        out.append(t("league.reliability", lang, player=player.name or handle(player), started=f.started,
                     finished=f.finished, met=f.met, missed=f.missed, abandoned=f.abandoned))
    return out
