"""Times and durations as players read them, in both languages (Babel's calendar data)."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone
from zoneinfo import ZoneInfo

from babel.dates import format_datetime
from hypothesis import given, settings
from hypothesis import strategies as st

from pbem.db.models import Player
from pbem.service import games
from pbem.service.timefmt import duration, show, zone_of
from tests.service.helpers import BLUE, RED

NOON = datetime(2026, 12, 1, 11, 0, tzinfo=timezone.utc)


def test_a_moment_in_the_readers_zone_and_in_utc() -> None:
    assert show(NOON, "Europe/Rome", "en") == "Tue 1 Dec 2026 12:00 CET (11:00 UTC)"
    assert show(NOON, "Europe/Rome", "it") == "mar 1 dic 2026 12:00 CET (11:00 UTC)"
    assert show(NOON, "America/New_York", "it") == "mar 1 dic 2026 06:00 EST (11:00 UTC)"
    assert show(NOON, "UTC", "en") == "Tue 1 Dec 2026 11:00 UTC"  # UTC is not repeated
    assert show(None, "Europe/Rome") == "—"


@settings(max_examples=300, deadline=None)
@given(st.datetimes(min_value=datetime(1970, 1, 2), max_value=datetime(2999, 12, 30), timezones=st.just(timezone.utc)),
       st.sampled_from(["Europe/Rome", "America/New_York", "Asia/Kolkata", "UTC", "Pacific/Chatham"]),
       st.sampled_from(["en", "it", "fr"]))
def test_a_moment_is_written_as_babels_pattern_writes_it(moment: datetime, zone: str, lang: str) -> None:
    """`show` writes the names itself (Babel's pattern machinery cost 150 µs a time): the same
    text as ``format_datetime(…, "EEE d MMM y HH:mm")`` in every language pbem speaks (another falls
    back to English) and every zone, every weekday and month."""
    local = moment.astimezone(ZoneInfo(zone))
    babel = format_datetime(local, "EEE d MMM y HH:mm", locale=lang if lang in ("en", "it") else "en")
    assert show(moment, zone, lang).startswith(f"{babel} {local.tzname()}")


def test_durations_in_words_exact_to_the_unit() -> None:
    assert duration(timedelta(days=3), "it") == "3 giorni"
    assert duration(timedelta(days=3), "en") == "3 days"
    assert duration(timedelta(days=10, hours=2), "en") == "10 days 2 hours"  # not rounded to "1 week"
    assert duration(timedelta(hours=1, minutes=30), "it") == "1 ora 30 minuti"
    assert duration(timedelta(days=1), "it") == "1 giorno"


def test_a_players_own_zone_wins_over_the_games(ctx) -> None:  # type: ignore[no-untyped-def]
    game_id = games.create(ctx, "duel", "Zones", [games.SeatSpec("red", RED), games.SeatSpec("blue", BLUE)])
    with ctx.session() as s:
        game = games.store.get_game(s, game_id)
        player = s.exec(games.select(Player).where(Player.address == RED)).one()
        player.timezone = "Asia/Tokyo"
        s.add(player)
        s.commit()
        assert zone_of(s, game, RED) == "Asia/Tokyo"
        assert zone_of(s, game, BLUE) == game.timezone
        assert zone_of(s, game, "nobody@example.org") == game.timezone
