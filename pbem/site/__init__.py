"""The club's static website (``pbem site build --out DIR``): games, leagues, ratings and
players as plain HTML pages with one stylesheet, an Atom feed of finished games and an
iCalendar feed of the deadlines to come. No server, no CDN, no script.

What a page may show is what an observer may see: a running game only through its
spectator view (the archive's ``--redacted`` export, ``rules.view(state, None)``), players
by their public handle (their address only where the club allows it)."""

from pbem.site.build import BuildReport, build

__all__ = ["BuildReport", "build"]
