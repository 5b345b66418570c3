"""Times as players read them: always with the zone, and in UTC beside it, in the
reader's language (Babel's calendar data: ``mar 1 dic 2026``, ``3 giorni``).

A player's zone is their own (``Player.timezone``, set by ``SET ZONE``), else the game's.
"""

from __future__ import annotations

from datetime import datetime, timedelta, timezone
from functools import lru_cache
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from babel import Locale
from babel.dates import format_timedelta
from sqlmodel import Session

from pbem.db.models import Game

#: The units a duration is written in, largest first (seconds each).
_UNITS = (86400, 3600, 60, 1)


def _locale(lang: str) -> str:
    return lang if lang in ("en", "it") else "en"


def _zone(zone: str) -> ZoneInfo:
    try:
        return ZoneInfo(zone or "UTC")
    except (ZoneInfoNotFoundError, ValueError):
        return ZoneInfo("UTC")


@lru_cache(maxsize=None)
def _names(lang: str) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """The abbreviated names of the weekdays (Monday first) and of the months in ``lang``, as
    Babel's patterns ``EEE`` and ``MMM`` write them (Babel's calendar data, read once)."""
    locale = Locale.parse(lang)
    days, months = locale.days["format"]["abbreviated"], locale.months["format"]["abbreviated"]
    return tuple(days[d] for d in range(7)), tuple(months[m] for m in range(1, 13))


def show(moment: datetime | None, zone: str, lang: str = "en") -> str:
    """``Tue 1 Dec 2026 18:00 CET (17:00 UTC)``, ``mar 1 dic 2026 18:00 CET (17:00 UTC)``;
    ``—`` for no time. The UTC time is left out only where the zone is UTC itself. Written as
    Babel's ``format_datetime(local, "EEE d MMM y HH:mm")`` writes it, from its names (`_names`)
    without its pattern machinery: every order mail's answer shows its deadline (callgrind: 55,000
    instructions a mail less; tests/service/test_timefmt.py compares the two)."""
    if moment is None:
        return "—"
    local = moment.astimezone(_zone(zone))
    utc = moment.astimezone(timezone.utc)
    days, months = _names(_locale(lang))
    text = f"{days[local.weekday()]} {local.day} {months[local.month - 1]} {local.year} {local:%H:%M} {local.tzname()}"
    if local.utcoffset() != utc.utcoffset():
        text += f" ({utc:%H:%M} UTC)"
    return text


def duration(delta: timedelta, lang: str = "en") -> str:
    """``3 days 4 hours``, ``3 giorni 4 ore``: exact, in whole units, largest first."""
    total = int(delta.total_seconds())
    parts = []
    for size in _UNITS:
        if total >= size:
            # a threshold of the count itself keeps Babel in this unit (10 days, not "1 week")
            count = total // size
            parts.append(format_timedelta(timedelta(seconds=count * size), threshold=count,
                                          locale=_locale(lang)))
            total %= size
    return " ".join(parts) or format_timedelta(timedelta(0), locale=_locale(lang))


def zone_of(session: Session, game: Game | None, address: str) -> str:
    """The zone a player reads times in: their own, else the game's, else UTC."""
    from pbem.service.store import player_at

    player = player_at(session, address)
    own = getattr(player, "timezone", "") if player is not None else ""
    return own or (game.timezone if game is not None else "UTC")
