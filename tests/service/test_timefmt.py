"""Times and durations as players read them, in both languages (Babel's calendar data)."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

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
