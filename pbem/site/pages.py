"""The site's pages as HTML text: one shell (data/page.html), tables that scroll sideways on a
phone, every value escaped. ``root``: the way back to the site's top from the page's folder."""

from __future__ import annotations

import html
from datetime import datetime
from functools import lru_cache
from importlib import resources
from string import Template
from typing import Any, Iterable, Sequence

from pbem.service.timefmt import show
from pbem.site.model import Site, SiteGame, SitePlayer


@lru_cache(maxsize=None)
def data_file(name: str) -> str:
    return resources.files("pbem.site").joinpath("data", name).read_text(encoding="utf-8")


def e(value: Any) -> str:
    return html.escape(str(value), quote=True)


def page(site: Site, title: str, body: str, root: str) -> str:
    return Template(data_file("page.html")).substitute(
        title=e(title), club=e(site.title), body=body, root=root, built=e(show(site.built, "UTC")))


def table(head: Sequence[str], rows: Iterable[Sequence[str]], numeric: Sequence[int] = (), wide: Sequence[int] = ()) -> str:
    """Cells are HTML already; ``numeric`` columns align right, ``wide`` ones hide on a phone."""
    def cls(i: int) -> str:
        names = (["num"] if i in numeric else []) + (["wide"] if i in wide else [])
        return f' class="{" ".join(names)}"' if names else ""

    out = ["<div class=\"scroll\"><table><thead><tr>",
           *(f"<th scope=\"col\"{cls(i)}>{h}</th>" for i, h in enumerate(head)), "</tr></thead><tbody>"]
    count = 0
    for row in rows:
        count += 1
        out.append("<tr>" + "".join(f"<td{cls(i)}>{c}</td>" for i, c in enumerate(row)) + "</tr>")
    if not count:
        out.append(f"<tr><td colspan=\"{len(head)}\">none yet</td></tr>")
    out.append("</tbody></table></div>")
    return "".join(out)


def player_link(site: Site, handle: str, root: str) -> str:
    player = site.players.get(handle)
    label = player.label if player is not None else handle
    return f'<a href="{root}players/{e(handle)}.html">{e(label)}</a>'


def game_link(game: SiteGame, root: str) -> str:
    return f'<a href="{root}games/{e(game.id)}.html">{e(game.id)}</a>'


def when(moment: datetime | None) -> str:
    return e(show(moment, "UTC")) if moment is not None else "—"


def seats_cell(site: Site, game: SiteGame, root: str) -> str:
    parts = []
    for seat, handles in game.seats:
        who = " + ".join(player_link(site, h, root) for h in handles) or "—"
        place = f" ({_ordinal(game.places[seat])})" if seat in game.places else ""
        parts.append(f"{e(seat)}: {who}{place}")
    return "<br>".join(parts)


def _ordinal(n: int) -> str:
    return {1: "1st", 2: "2nd", 3: "3rd"}.get(n, f"{n}th")


def status_cell(game: SiteGame) -> str:
    if game.status == "finished":
        return '<span class="status-finished">finished</span>'
    text = "paused" if game.status == "paused" else f"turn {game.turn} ({e(game.phase)})"
    return f'<span class="status-running">{text}</span>'


# --- the pages ------------------------------------------------------------------------------------


def index(site: Site, recent: int = 20) -> str:
    body = [f"<h1>{e(site.title)}</h1>",
            f"<p class=\"meta\">{len(site.running)} games running, {len(site.finished)} finished, "
            f"{len(site.leagues)} leagues, {len(site.players)} players.</p>",
            "<h2>Running games</h2>", running_table(site, site.running, ""),
            "<h2>Leagues</h2>", leagues_table(site, ""),
            f"<h2>Finished lately</h2>", finished_table(site, site.finished[:recent], ""),
            '<p><a href="games.html">Every game</a> · <a href="ratings.html">Ratings</a> · '
            '<a href="finished.atom">Feed of finished games</a> · <a href="deadlines.ics">Calendar of deadlines</a></p>']
    return page(site, "Home", "".join(body), "")


def running_table(site: Site, games: Sequence[SiteGame], root: str) -> str:
    return table(["game", "name", "kind", "where it stands", "next deadline", "seats"],
                 ([game_link(g, root), e(g.name), e(g.title), status_cell(g), when(g.deadline),
                   seats_cell(site, g, root)] for g in games), wide=(1, 5))


def finished_table(site: Site, games: Sequence[SiteGame], root: str) -> str:
    return table(["game", "name", "kind", "ended", "result", "seats"],
                 ([game_link(g, root), e(g.name), e(g.title), when(g.finished_at), e(g.summary),
                   seats_cell(site, g, root)] for g in games), wide=(1, 5))


def games_page(site: Site) -> str:
    body = ["<h1>Games</h1>", "<h2>Running</h2>", running_table(site, site.running, ""),
            "<h2>Finished</h2>", finished_table(site, site.finished, "")]
    return page(site, "Games", "".join(body), "")


def game_page(site: Site, game: SiteGame, map_file: str | None) -> str:
    root = "../"
    archive = f"{root}archives/{e(game.id)}/index.html"
    league = ""
    if game.league is not None:
        league = (f' · <a href="{root}leagues/{e(game.league[0])}.html">league {e(game.league[0])}</a>, '
                  f"round {game.league[1]}")
    body = [f"<h1>{e(game.name)}</h1>",
            f"<p class=\"meta\">{e(game.title)} · game {e(game.id)} · {status_cell(game)}{league}</p>"]
    if game.status == "finished":
        body += [f"<p>Ended {when(game.finished_at)}. {e(game.summary)}</p>",
                 f"<p><a href=\"{archive}\">The archive: every turn, every order, every die</a> "
                 f"(check it with <code>pbem verify</code>).</p>"]
    else:
        deadline = when(game.deadline) if game.deadline is not None else "none while paused"
        body += [f"<p>Next deadline: {deadline}.</p>",
                 f"<p><a href=\"{archive}\">Turn by turn, as an observer sees it</a>. Orders, hands and sealed "
                 "dice are published when the game ends.</p>"]
    body += ["<h2>Seats</h2>", f"<p>{seats_cell(site, game, root)}</p>"]
    if map_file is not None:
        what = "final position" if game.status == "finished" else "position as an observer sees it"
        body += [f"<h2>The {what}</h2>", f'<img src="{root}{e(map_file)}" alt="map of {e(game.name)}: the {what}">']
    return page(site, game.name, "".join(body), root)


def leagues_table(site: Site, root: str) -> str:
    return table(["league", "kind", "format", "round", "players", "status"],
                 ([f'<a href="{root}leagues/{e(lg["id"])}.html">{e(lg["name"])}</a>', e(lg["kind"]), e(lg["format"]),
                   f"{lg['round']} of {lg['rounds'] or '?'}", str(len(lg["standings"])), e(lg["status"])]
                  for lg in site.leagues))


def leagues_page(site: Site) -> str:
    return page(site, "Leagues", "<h1>Leagues</h1>" + leagues_table(site, ""), "")


def league_page(site: Site, league: dict[str, Any], games: dict[str, SiteGame]) -> str:
    root = "../"
    body = [f"<h1>{e(league['name'])}</h1>",
            f"<p class=\"meta\">{e(league['kind'])} · {e(league['format'])} · {league['seats_per_game']} seats a game · "
            f"round {league['round']} of {league['rounds'] or '?'} · {e(league['status'])}</p>",
            "<h2>Standings</h2>",
            table(["#", "player", "points", "Buchholz", "won", "played"],
                  ([str(i), player_link(site, s["handle"], root), f"{s['points']:g}", f"{s['buchholz']:g}",
                    str(s["wins"]), str(s["played"])] for i, s in enumerate(league["standings"], 1)),
                  numeric=(0, 2, 3, 4, 5)),
            "<p class=\"meta\">A game gives one point for each seat finished ahead of and half a point for each tie; "
            "a bye one point (in games of more seats, the average). Ties: Buchholz, games won, order of joining.</p>"]
    for number, tables in league["games"].items():
        rows = []
        for entry in tables:
            if "bye" in entry:
                rows.append(["bye", player_link(site, entry["bye"], root) if entry["bye"] else "—", ""])
                continue
            game = games.get(entry["game"])
            if game is None:
                continue
            rows.append([game_link(game, root), seats_cell(site, game, root), status_cell(game)])
        body += [f"<h2>Round {e(number)}</h2>", table(["game", "seats", "status"], rows)]
    return page(site, league["name"], "".join(body), root)


def ratings_page(site: Site) -> str:
    body = ["<h1>Ratings</h1>",
            "<p class=\"meta\">OpenSkill (Plackett-Luce) per game kind over every finished game in the order the games "
            "ended; listed by mu − 3·sigma. <code>pbem ratings verify</code> recomputes them from the archives.</p>"]
    kinds = sorted({r.kind for r in site.ratings})
    for kind in kinds:
        rows = [r for r in site.ratings if r.kind == kind]
        body += [f"<h2 id=\"{e(kind)}\">{e(kind)}</h2>",
                 table(["#", "player", "rating", "mu", "sigma", "games"],
                       ([str(i), player_link(site, r.player, ""), f"{r.ordinal:.2f}", f"{r.mu:.2f}", f"{r.sigma:.2f}",
                         str(r.games)] for i, r in enumerate(rows, 1)), numeric=(0, 2, 3, 4, 5))]
    if not kinds:
        body.append("<p>No rated games yet.</p>")
    return page(site, "Ratings", "".join(body), "")


def players_page(site: Site) -> str:
    rows = sorted(site.players.values(), key=lambda p: p.label.lower())
    return page(site, "Players", "<h1>Players</h1>" + table(
        ["player", "games finished", "deadlines met", "seats abandoned"],
        ([player_link(site, p.handle, ""), f"{p.figures.finished} of {p.figures.started}",
          _share(p), str(p.figures.abandoned)] for p in rows), numeric=(1, 2, 3)), "")


def _share(p: SitePlayer) -> str:
    share = p.figures.share_met
    return f"{p.figures.met} of {p.figures.met + p.figures.missed}" + (f" ({share:.0%})" if share is not None else "")


def player_page(site: Site, player: SitePlayer, games: Sequence[SiteGame]) -> str:
    root = "../"
    median = player.figures.median
    mine = [g for g in games if any(player.handle in handles for _, handles in g.seats)]
    body = [f"<h1>{e(player.label)}</h1>"]
    if player.address:
        body.append(f"<p class=\"meta\">{e(player.address)}</p>")
    body += ["<h2>Reliability</h2>",
             table(["games finished", "deadlines met", "deadlines missed", "seats abandoned", "median time to orders"],
                   [[f"{player.figures.finished} of {player.figures.started}", str(player.figures.met),
                     str(player.figures.missed), str(player.figures.abandoned),
                     f"{median.total_seconds() / 3600:.1f} h" if median is not None else "—"]], numeric=(0, 1, 2, 3, 4)),
             "<h2>Ratings</h2>",
             table(["kind", "rating", "mu", "sigma", "games"],
                   ([f'<a href="{root}ratings.html#{e(r.kind)}">{e(r.kind)}</a>', f"{r.ordinal:.2f}", f"{r.mu:.2f}",
                     f"{r.sigma:.2f}", str(r.games)] for r in site.ratings if r.player == player.handle),
                   numeric=(1, 2, 3, 4)),
             "<h2>Games</h2>",
             table(["game", "kind", "seat", "result"],
                   ([game_link(g, root), e(g.title), e(", ".join(s for s, h in g.seats if player.handle in h)),
                     _result(g, player.handle)] for g in mine))]
    return page(site, player.label, "".join(body), root)


def _result(game: SiteGame, handle: str) -> str:
    if game.status != "finished":
        return status_cell(game)
    places = [game.places[s] for s, h in game.seats if handle in h and s in game.places]
    if not places:
        return e(game.summary) or "not ranked"
    tied = sum(1 for p in game.places.values() if p == places[0]) > 1
    return f"{_ordinal(places[0])}{' (tied)' if tied else ''} of {len(game.places)}"
