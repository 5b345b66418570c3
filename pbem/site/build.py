"""``pbem site build --out DIR``: write every page, the archives they link and the feeds.

Archives are the slow part (a map per turn): each game's is written again only when the game
changed since the last build (a stamp beside it), so rebuilding a big club's site after one
turn costs one archive. A running game's archive is the observer's (``--redacted``)."""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass, field
from pathlib import Path

from pbem.service import archive
from pbem.service.context import Context
from pbem.site import feeds, pages
from pbem.site.model import Site, SiteGame, collect

log = logging.getLogger(__name__)

STAMP = ".pbem-stamp"


@dataclass
class BuildReport:
    pages: int = 0
    archives_written: int = 0
    archives_kept: int = 0
    seconds: float = 0.0
    problems: list[str] = field(default_factory=list)

    def text(self) -> str:
        head = (f"site built: {self.pages} pages, {self.archives_written} archives written, "
                f"{self.archives_kept} unchanged, in {self.seconds:.1f} s")
        return "\n".join([head, *(f"problem: {p}" for p in self.problems)])


def build(ctx: Context, out: Path) -> BuildReport:
    started = time.perf_counter()
    report = BuildReport()
    out.mkdir(parents=True, exist_ok=True)
    for folder in ("games", "leagues", "players", "archives"):
        (out / folder).mkdir(exist_ok=True)
    site = collect(ctx)
    (out / "style.css").write_text(pages.data_file("site.css"), encoding="utf-8")
    by_id = {g.id: g for g in site.games}
    for game in site.games:
        map_file = _archive(ctx, out, game, report)
        _write(out / "games" / f"{game.id}.html", pages.game_page(site, game, map_file), report)
    for league in site.leagues:
        _write(out / "leagues" / f"{league['id']}.html", pages.league_page(site, league, by_id), report)
    for player in site.players.values():
        _write(out / "players" / f"{player.handle}.html", pages.player_page(site, player, site.games), report)
    _write(out / "index.html", pages.index(site), report)
    _write(out / "games.html", pages.games_page(site), report)
    _write(out / "leagues.html", pages.leagues_page(site), report)
    _write(out / "ratings.html", pages.ratings_page(site), report)
    _write(out / "players.html", pages.players_page(site), report)
    (out / "finished.atom").write_bytes(feeds.atom(site))
    (out / "deadlines.ics").write_bytes(feeds.deadlines(ctx, site))
    report.seconds = time.perf_counter() - started
    log.info("%s", report.text().splitlines()[0])
    return report


def _write(path: Path, text: str, report: BuildReport) -> None:
    path.write_text(text, encoding="utf-8")
    report.pages += 1


def _archive(ctx: Context, out: Path, game: SiteGame, report: BuildReport) -> str | None:
    """The game's archive (full once finished, the observer's before), written when the game
    changed; returns the path of its latest map from the site's top, if there is one."""
    folder = out / "archives" / game.id
    stamp = folder / STAMP
    if stamp.is_file() and stamp.read_text(encoding="utf-8") == game.stamp:
        report.archives_kept += 1
    else:
        try:
            archive.export(ctx, game.id, folder, redacted=game.status != "finished")
        except Exception as exc:  # one bad game must not keep the club's site from being built
            log.exception("archive of %s not written", game.id)
            report.problems.append(f"{game.id}: archive not written: {exc}")
            return None
        stamp.write_text(game.stamp, encoding="utf-8")
        report.archives_written += 1
    maps = sorted((folder / "maps").glob("phase-*.png"), key=lambda p: int(p.stem.split("-")[1]))
    latest = maps[-1] if maps else folder / "maps" / "start.png"
    return f"archives/{game.id}/maps/{latest.name}" if latest.is_file() else None


def site_of(ctx: Context) -> Site:
    """The data behind the pages (for tests and the benchmark)."""
    return collect(ctx)
