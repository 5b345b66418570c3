"""Times as players read them: always with the zone, and in UTC beside it."""

from __future__ import annotations

from datetime import datetime, timezone
from zoneinfo import ZoneInfo

_DAYS = {"en": ("Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"),
         "it": ("lun", "mar", "mer", "gio", "ven", "sab", "dom")}


def show(moment: datetime | None, zone: str, lang: str = "en") -> str:
    """``Tue 24 Nov 2026 18:00 CET (17:00 UTC)``; ``—`` for no time."""
    if moment is None:
        return "—"
    local = moment.astimezone(ZoneInfo(zone))
    day = _DAYS.get(lang, _DAYS["en"])[local.weekday()]
    utc = moment.astimezone(timezone.utc)
    text = f"{day} {local:%d %b %Y %H:%M} {local.tzname()}"
    if local.utcoffset() != utc.utcoffset():
        text += f" ({utc:%H:%M} UTC)"
    return text
