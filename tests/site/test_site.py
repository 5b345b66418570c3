"""The club's website as files (issue "Leagues, ratings and the club's website"): what it
holds, what it must never hold (secrets, addresses, a running game's orders or seed), the
feeds, the colours' contrast (WCAG 2.1 AA, 1.4.3), and a rebuild that rewrites only what changed."""

from __future__ import annotations

import json
import re
import xml.etree.ElementTree as ET
from pathlib import Path

from icalendar import Calendar

from pbem.site import build
from tests.site.conftest import Club


def _texts(out: Path) -> dict[Path, str]:
    return {p: p.read_text(encoding="utf-8") for p in out.rglob("*") if p.suffix in (".html", ".json", ".atom", ".ics")}


def test_pages_of_games_leagues_ratings_and_players(club: Club) -> None:
    out = club.out
    index = (out / "index.html").read_text()
    assert "Circolo di prova" in index and "Fog of war" in index and "Autumn Swiss" in index
    assert '<meta name="viewport" content="width=device-width, initial-scale=1">' in index
    assert "<script" not in index and "http://" not in index.replace('xmlns="http://', "")
    league = (out / "leagues" / f"{club.league}.html").read_text()
    assert "Standings" in league and "Round 1" in league and "Round 2" in league
    assert (out / "ratings.html").read_text().count("<tr>") == (1 + 4) + (1 + 2)  # Kriegspiel's four, Arditi's two
    for game in ("k1", "k2", "k3", "k4"):
        page = (out / "games" / f"{game}.html").read_text()
        assert "The archive: every turn" in page and f"../archives/{game}/index.html" in page
        assert (out / "archives" / game / "game.json").is_file()
    running = (out / "games" / f"{club.hidden}.html").read_text()
    assert "Next deadline" in running and "as an observer sees it" in running
    players = sorted((out / "players").glob("p*.html"))
    assert len(players) == 4
    assert "Reliability" in players[0].read_text() and "median time to orders" in players[0].read_text()


def test_nothing_hidden_is_published(club: Club) -> None:
    texts = _texts(club.out)
    joined = "\n".join(texts.values())
    for secret in club.secrets:
        assert secret not in joined
    for seed in club.running_seeds:
        assert seed not in joined  # a running game's dice seed
    assert not re.search(r"[a-z]+@example\.org", joined)  # no address: the club did not allow them
    conceded = json.loads((club.out / "archives" / club.conceded / "game.json").read_text())
    assert [v["vote"] for v in conceded["game"]["votes"]] == ["concede"]  # the vote is there, by handle
    assert re.fullmatch(r"p\d+", conceded["game"]["votes"][0]["by"])
    hidden = [t for p, t in texts.items() if club.hidden in p.parts or p.stem == club.hidden]
    assert hidden
    for orders in club.hidden_orders:  # the sealed deployment of a running Kriegspiel
        for line in orders.splitlines():
            assert all(line not in t for t in hidden), line
    assert all('"format": "pbem-archive-redacted-1"' in t for p, t in texts.items()
               if p.name == "game.json" and club.hidden in p.parts)


def test_feeds(club: Club) -> None:
    feed = ET.parse(club.out / "finished.atom").getroot()
    ns = {"a": "http://www.w3.org/2005/Atom"}
    entries = feed.findall("a:entry", ns)
    assert len(entries) == 5  # the league's four games and the one conceded
    assert [e.find("a:id", ns).text for e in entries][0].startswith("tag:")  # type: ignore[union-attr]
    assert all((club.out / e.find("a:link", ns).get("href")).is_file() for e in entries)  # type: ignore[union-attr,operator]
    cal = Calendar.from_ical((club.out / "deadlines.ics").read_bytes())
    events = [c for c in cal.walk("VEVENT")]
    assert {str(e["uid"]).split("-")[0] for e in events} == {club.hidden, club.arditi}
    assert all(e.decoded("dtstart") > club.ctx.now() for e in events)


def _luminance(colour: str) -> float:
    r, g, b = (int(colour[i:i + 2], 16) / 255 for i in (1, 3, 5))

    def lin(c: float) -> float:
        return c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4

    return 0.2126 * lin(r) + 0.7152 * lin(g) + 0.0722 * lin(b)


def contrast(a: str, b: str) -> float:
    hi, lo = sorted((_luminance(a), _luminance(b)), reverse=True)
    return (hi + 0.05) / (lo + 0.05)


def test_colours_meet_wcag_aa(club: Club) -> None:
    css = (club.out / "style.css").read_text()
    colours = dict(re.findall(r"--([a-z]+):\s*(#[0-9a-f]{6});", css))
    assert contrast("#000000", "#ffffff") > 20.9  # the formula itself
    for text in ("fg", "muted", "link", "visited", "ok", "warn"):
        for background in ("bg", "head"):
            assert contrast(colours[text], colours[background]) >= 4.5, (text, background)


def test_a_rebuild_rewrites_only_the_archives_of_games_that_changed(club: Club, tmp_path: Path) -> None:
    report = build(club.ctx, club.out)
    assert report.archives_written == 0 and report.archives_kept == 7
    from tests.support.leagues import send

    assert send(club.ctx, club.arditi, "green", ["AUTO"]) == "orders"
    report = build(club.ctx, club.out)
    assert report.archives_written == 1 and report.archives_kept == 6
