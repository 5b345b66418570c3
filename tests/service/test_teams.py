"""Teams: a seat held by several players, each with their own secret and language; all
receive the seat's mail; an order mail from any of them replaces the sheet on file, and
the others are told who sent it. The Duel test game on a real database, red played by a
team of Anna (English) and Beppe (Italian), blue by one player."""

from __future__ import annotations

import json

import pytest
from sqlmodel import col, select

from pbem.db.models import Holder, SheetRow
from pbem.errors import GameStateError, UserError
from pbem.service import games, inbound, teams, turns
from pbem.service.context import Context
from tests.service.helpers import BLUE, last_id, outbox, text_of
from tests.support.players import order_block, player_mail, secret_from_welcome

ANNA, BEPPE, CARLA = "anna@example.org", "beppe@example.org", "carla@example.org"


@pytest.fixture
def team(ctx: Context) -> tuple[str, dict[str, str]]:
    """A Duel whose red seat is held by Anna (en) and Beppe (it); the secrets by address."""
    red = games.SeatSpec.parse(f"red={ANNA},{BEPPE}:it")
    game_id = games.create(ctx, "duel", "Team duel", [red, games.SeatSpec("blue", BLUE, "it")])
    secrets = {addr: secret_from_welcome(text_of(outbox(ctx, to=addr, kind="welcome")[0]))
               for addr in (ANNA, BEPPE, BLUE)}
    return game_id, secrets


def send(ctx, sender, game_id, seat, secret, lines):  # type: ignore[no-untyped-def]
    return inbound.handle(ctx, player_mail(sender, order_block(game_id, seat, secret, lines)))


def to(rows) -> list[str]:  # type: ignore[no-untyped-def]
    return [json.loads(r.recipients_json)[0] for r in rows]


def filed(ctx) -> list[SheetRow]:  # type: ignore[no-untyped-def]
    with ctx.session() as s:
        return list(s.exec(select(SheetRow).where(col(SheetRow.superseded).is_(False))))


def test_seat_syntax_for_teams() -> None:
    spec = games.SeatSpec.parse("red=anna@example.org:en,beppe@example.org:it")
    assert [(h.address, h.language) for h in spec.holders] == [(ANNA, "en"), (BEPPE, "it")]
    assert games.SeatSpec.parse("north=alice@example.org:it") == games.SeatSpec("north", "alice@example.org", "it")
    for bad in ("red=anna@example.org,", "red=anna@example.org,beppe", "red=anna@example.org,beppe@example.org:fr"):
        with pytest.raises(UserError):
            games.SeatSpec.parse(bad)


def test_the_same_player_twice_in_a_seat_is_refused(ctx) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(UserError, match="same player twice"):
        games.create(ctx, "duel", "x", [games.SeatSpec.parse(f"red={ANNA},{ANNA.upper()}"),
                                        games.SeatSpec("blue", BLUE)])


def test_each_holder_is_welcomed_with_an_own_secret_in_an_own_language(ctx, team) -> None:  # type: ignore[no-untyped-def]
    game_id, secrets = team
    anna, beppe = (outbox(ctx, to=a, kind="welcome") for a in (ANNA, BEPPE))
    assert len(anna) == len(beppe) == 1
    assert len(set(secrets.values())) == 3
    assert "Welcome" in text_of(anna[0]) and "Benvenuto" in text_of(beppe[0])
    assert BEPPE in text_of(anna[0]) and ANNA in text_of(beppe[0])  # each learns who shares the seat
    assert secrets[BEPPE] not in text_of(anna[0]) and secrets[ANNA] not in text_of(beppe[0])
    assert f"red <{ANNA}> + <{BEPPE}>" in text_of(outbox(ctx, to=BLUE, kind="welcome")[0])
    red = next(s for s in games.show_game(ctx, game_id)["seats"] if s["seat"] == "red")
    assert red["holders"] == [{"address": ANNA, "language": "en", "status": "active"},
                              {"address": BEPPE, "language": "it", "status": "active"}]


def test_any_holder_replaces_the_sheet_and_the_others_are_told_who(ctx, team) -> None:  # type: ignore[no-untyped-def]
    game_id, secrets = team
    before = last_id(ctx)
    assert send(ctx, ANNA, game_id, "red", secrets[ANNA], ["PLAY 3"]).status == "orders"
    mails = outbox(ctx, after=before)
    assert sorted((to([m])[0], m.kind) for m in mails) == [(ANNA, "reply"), (BEPPE, "notice")]
    first = filed(ctx)[0]
    notice = text_of(next(m for m in mails if m.kind == "notice"))
    assert ANNA in notice and first.receipt in notice and "PLAY 3" in notice and "ordini" in notice  # Beppe: Italian
    before = last_id(ctx)
    assert send(ctx, BEPPE, game_id, "red", secrets[BEPPE], ["GIOCA 1"]).status == "orders"
    mails = outbox(ctx, after=before)
    echo = next(m for m in mails if m.kind == "reply")
    told = next(m for m in mails if m.kind == "notice")
    assert to([echo]) == [BEPPE] and to([told]) == [ANNA] and len(mails) == 2  # blue hears nothing
    now = filed(ctx)[0]
    assert (now.canonical, now.sender) == ("PLAY 1", BEPPE)
    assert ANNA in text_of(echo) and first.receipt in text_of(echo)  # "sostituiscono gli ordini mandati da anna"
    assert BEPPE in told.subject and now.receipt in text_of(told) and first.receipt in text_of(told)
    assert "PLAY 1" in text_of(told) and "replace" in text_of(told)
    # STATUS tells Anna that the orders on file were sent by Beppe.
    before = last_id(ctx)
    send(ctx, ANNA, game_id, "red", secrets[ANNA], ["STATUS"])
    status = outbox(ctx, after=before)
    assert to(status) == [ANNA] and f"sent by {BEPPE}" in text_of(status[0])


def test_a_team_mates_secret_does_not_work_and_refusals_stay_with_the_sender(ctx, team) -> None:  # type: ignore[no-untyped-def]
    game_id, secrets = team
    before = last_id(ctx)
    result = send(ctx, ANNA, game_id, "red", secrets[BEPPE], ["PLAY 3"])  # Anna's address, Beppe's secret
    assert (result.status, result.note) == ("refused", "wrong-secret")
    assert to(outbox(ctx, after=before)) == [ANNA]  # never to Beppe
    assert send(ctx, ANNA, game_id, "red", secrets[ANNA], ["PLAY 9"]).status == "refused"
    assert to(outbox(ctx, after=before)) == [ANNA, ANNA]
    # A stranger's mail concerns the whole seat: each holder is told, in their language.
    before = last_id(ctx)
    result = send(ctx, "mallory@evil.example", game_id, "red", secrets[ANNA], ["PLAY 3"])
    assert (result.status, result.note) == ("refused", "wrong-sender")
    notices = outbox(ctx, after=before)
    assert sorted(to(notices)) == [ANNA, BEPPE] and all("mallory@evil.example" in text_of(n) for n in notices)
    assert all(s not in text_of(n) for n in notices for s in secrets.values())
    assert filed(ctx) == []


def test_reports_and_reminders_reach_every_holder_in_their_language(ctx, clock, team) -> None:  # type: ignore[no-untyped-def]
    game_id, secrets = team
    clock.advance(hours=25)
    assert turns.send_reminders(ctx) == 3  # Anna, Beppe and blue
    reminders = outbox(ctx, kind="reminder")
    assert sorted(to(reminders)) == sorted([ANNA, BEPPE, BLUE])
    by = {to([r])[0]: r for r in reminders}
    assert "reminder" in by[ANNA].subject and "promemoria" in by[BEPPE].subject
    send(ctx, BEPPE, game_id, "red", secrets[BEPPE], ["PLAY 2"])
    before = last_id(ctx)
    send(ctx, BLUE, game_id, "blue", secrets[BLUE], ["GIOCA 1"])
    reports = {to([r])[0]: r for r in outbox(ctx, kind="report", after=before)}
    assert set(reports) == {ANNA, BEPPE, BLUE}
    assert "report" in reports[ANNA].subject and "rapporto" in reports[BEPPE].subject
    assert "report for red" in text_of(reports[ANNA]) and "rapporto per red" in text_of(reports[BEPPE])


def test_secret_new_rotates_only_the_senders_secret(ctx, team) -> None:  # type: ignore[no-untyped-def]
    game_id, secrets = team
    before = last_id(ctx)
    assert send(ctx, BEPPE, game_id, "red", secrets[BEPPE], ["SEGRETO NUOVO"]).status == "command"
    mails = outbox(ctx, after=before)
    assert to(mails) == [BEPPE]
    new = secret_from_welcome(text_of(mails[0]))
    assert new != secrets[BEPPE]
    assert send(ctx, BEPPE, game_id, "red", secrets[BEPPE], ["PLAY 1"]).note == "wrong-secret"
    assert send(ctx, ANNA, game_id, "red", new, ["PLAY 1"]).note == "wrong-secret"
    assert send(ctx, ANNA, game_id, "red", secrets[ANNA], ["PLAY 1"]).status == "orders"
    assert send(ctx, BEPPE, game_id, "red", new, ["PLAY 2"]).status == "orders"


def test_one_holder_leaving_keeps_the_seat_the_last_one_abandons_it(ctx, team) -> None:  # type: ignore[no-untyped-def]
    game_id, secrets = team
    before = last_id(ctx)
    send(ctx, ANNA, game_id, "red", secrets[ANNA], ["LEAVE"])
    assert BEPPE in text_of(outbox(ctx, after=before)[0])  # the question names who holds on
    before = last_id(ctx)
    assert send(ctx, ANNA, game_id, "red", secrets[ANNA], ["LEAVE CONFIRM"]).status == "command"
    mails = outbox(ctx, after=before)
    assert sorted(to(mails)) == [ANNA, BEPPE] and BLUE not in to(mails)
    red = next(s for s in games.show_game(ctx, game_id)["seats"] if s["seat"] == "red")
    assert red["status"] == "active" and [h["status"] for h in red["holders"]] == ["left", "active"]
    assert red["address"] == BEPPE
    # Anna no longer acts for the seat nor receives its mail.
    assert send(ctx, ANNA, game_id, "red", secrets[ANNA], ["PLAY 1"]).note == "wrong-sender"
    before = last_id(ctx)
    send(ctx, BEPPE, game_id, "red", secrets[BEPPE], ["PLAY 2"])
    send(ctx, BLUE, game_id, "blue", secrets[BLUE], ["GIOCA 2"])
    assert ANNA not in to(outbox(ctx, after=before)) and BEPPE in to(outbox(ctx, kind="report", after=before))
    # The last holder out abandons the seat; everybody is told; reports still reach the leaver.
    before = last_id(ctx)
    assert send(ctx, BEPPE, game_id, "red", secrets[BEPPE], ["LASCIA CONFERMA"]).status == "command"
    red = next(s for s in games.show_game(ctx, game_id)["seats"] if s["seat"] == "red")
    assert red["status"] == "abandoned"
    told = outbox(ctx, after=before)
    assert BLUE in to(told) and ANNA not in to(told)
    assert any("ha lasciato" in text_of(m) for m in told if to([m]) == [BLUE])
    assert send(ctx, BEPPE, game_id, "red", secrets[BEPPE], ["STATO"]).status == "command"


def test_the_game_master_adds_and_removes_players(ctx, team) -> None:  # type: ignore[no-untyped-def]
    game_id, secrets = team
    before = last_id(ctx)
    assert "carla@example.org" in teams.add(ctx, game_id, "red", games.HolderSpec(CARLA, "it"))
    mails = outbox(ctx, after=before)
    welcome = next(m for m in mails if m.kind == "welcome")
    assert to([welcome]) == [CARLA] and "Benvenuto" in text_of(welcome)
    carla = secret_from_welcome(text_of(welcome))
    assert carla not in secrets.values() and all(s not in text_of(m) for m in mails for s in (*secrets.values(),))
    assert sorted(to(m for m in mails if m.kind == "notice")) == [ANNA, BEPPE]
    assert all(carla not in text_of(m) for m in mails if m.kind == "notice")
    with pytest.raises(UserError, match="already holds"):
        teams.add(ctx, game_id, "red", games.HolderSpec(CARLA))
    assert send(ctx, CARLA, game_id, "red", carla, ["PLAY 3"]).status == "orders"
    # Removing: the player is told, the secret stops working; a seat keeps one holder.
    before = last_id(ctx)
    teams.remove(ctx, game_id, "red", ANNA)
    assert sorted(to(outbox(ctx, after=before))) == [ANNA, BEPPE, CARLA]
    assert send(ctx, ANNA, game_id, "red", secrets[ANNA], ["PLAY 1"]).note == "wrong-sender"
    teams.remove(ctx, game_id, "red", BEPPE)
    with pytest.raises(GameStateError, match="only player"):
        teams.remove(ctx, game_id, "red", CARLA)
    with pytest.raises(UserError, match="does not hold"):
        teams.remove(ctx, game_id, "blue", CARLA)
    # Added again, a former holder gets a new secret; the old one stays dead.
    teams.add(ctx, game_id, "red", games.HolderSpec(ANNA))
    again = secret_from_welcome(text_of(outbox(ctx, to=ANNA, kind="welcome")[-1]))
    assert again != secrets[ANNA]
    assert send(ctx, ANNA, game_id, "red", secrets[ANNA], ["PLAY 1"]).note == "wrong-secret"
    assert send(ctx, ANNA, game_id, "red", again, ["PLAY 1"]).status == "orders"
    with ctx.session() as s:
        assert len(s.exec(select(Holder).where(Holder.address == ANNA)).all()) == 1  # the row came back


def test_a_player_added_to_an_abandoned_seat_brings_it_back(ctx, duel) -> None:  # type: ignore[no-untyped-def]
    game_id, secrets = duel  # a game from before: one player a seat
    send(ctx, BLUE, game_id, "blue", secrets["blue"], ["GIOCA 3"])
    send(ctx, "red@example.org", game_id, "red", secrets["red"], ["LEAVE CONFIRM"])
    assert {s["seat"]: s["status"] for s in games.show_game(ctx, game_id)["seats"]}["red"] == "abandoned"
    before = last_id(ctx)
    teams.add(ctx, game_id, "red", games.HolderSpec(CARLA))
    shown = games.show_game(ctx, game_id)
    red = next(s for s in shown["seats"] if s["seat"] == "red")
    assert red["status"] == "active" and red["address"] == CARLA
    mails = outbox(ctx, after=before)
    assert sorted(to(mails)) == sorted([CARLA, BLUE])  # the leaver is no longer written to
    carla = secret_from_welcome(text_of(next(m for m in mails if m.kind == "welcome")))
    if "red" in shown["awaiting"]:
        assert send(ctx, CARLA, game_id, "red", carla, ["PLAY 2"]).status == "orders"
    assert send(ctx, "red@example.org", game_id, "red", secrets["red"], ["STATUS"]).note == "wrong-sender"
