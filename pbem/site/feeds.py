"""The site's feeds: Atom (RFC 4287) of finished games, iCalendar (RFC 5545) of the
deadlines to come. A deadline's event has the UID of the event mailed to the players
(`pbem.service.calendar.uid`), so a calendar holding both keeps one."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from datetime import datetime

from icalendar import Calendar, Event

from pbem.service.calendar import SLOT
from pbem.service.context import Context
from pbem.service.texts import t
from pbem.site.model import Site

ATOM = "http://www.w3.org/2005/Atom"
#: How many finished games the feed lists (the newest).
FEED_SIZE = 100


def _tag(site: Site, what: str) -> str:
    year = site.built.year
    return f"tag:{site.domain},{year}:{what}"


def _iso(moment: datetime | None) -> str:
    return (moment or datetime.min).isoformat()


def atom(site: Site) -> bytes:
    ET.register_namespace("", ATOM)
    feed = ET.Element(f"{{{ATOM}}}feed")
    if site.url:
        feed.set("{http://www.w3.org/XML/1998/namespace}base", site.url + "/")
    ET.SubElement(feed, f"{{{ATOM}}}title").text = f"{site.title}: finished games"
    ET.SubElement(feed, f"{{{ATOM}}}id").text = _tag(site, "finished")
    games = site.finished[:FEED_SIZE]
    ET.SubElement(feed, f"{{{ATOM}}}updated").text = _iso(games[0].finished_at if games else site.built)
    ET.SubElement(feed, f"{{{ATOM}}}link", rel="self", href="finished.atom")
    ET.SubElement(feed, f"{{{ATOM}}}link", rel="alternate", href="index.html")
    author = ET.SubElement(feed, f"{{{ATOM}}}author")
    ET.SubElement(author, f"{{{ATOM}}}name").text = site.title
    for game in games:
        entry = ET.SubElement(feed, f"{{{ATOM}}}entry")
        ET.SubElement(entry, f"{{{ATOM}}}title").text = f"{game.name} ({game.title}) has ended"
        ET.SubElement(entry, f"{{{ATOM}}}id").text = _tag(site, f"game/{game.id}")
        ET.SubElement(entry, f"{{{ATOM}}}updated").text = _iso(game.finished_at)
        ET.SubElement(entry, f"{{{ATOM}}}link", rel="alternate", href=f"games/{game.id}.html")
        ET.SubElement(entry, f"{{{ATOM}}}summary").text = game.summary or "ended"
    return b'<?xml version="1.0" encoding="utf-8"?>\n' + ET.tostring(feed, encoding="utf-8")


def deadlines(ctx: Context, site: Site) -> bytes:
    cal = Calendar()
    cal.add("prodid", "-//pbem//club deadlines//EN")
    cal.add("version", "2.0")
    cal.add("method", "PUBLISH")
    cal.add("x-wr-calname", f"{site.title}: deadlines")
    for game in site.running:
        if game.deadline is None or game.phase_seq is None or game.deadline < site.built:
            continue
        event = Event()
        event.add("uid", f"{game.id}-{game.phase_seq}@{ctx.config.server.domain}")
        event.add("sequence", game.calendar_sequence)
        event.add("dtstamp", site.built)
        event.add("dtstart", game.deadline)
        event.add("dtend", game.deadline + SLOT)
        event.add("summary", t("calendar.summary", "en", game=game.id, name=game.name, turn=game.turn))
        cal.add_component(event)
    return bytes(cal.to_ical())
