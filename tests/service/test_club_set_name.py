"""SET NAME / IMPOSTA NOME: a player names themself by mail, confirmed by a code like the
other settings (SET ZONE, SET LANGUAGE); the name is what the other players read next to the
address, so it is one short line: no control or format characters, at most 40 characters,
no < > @. The grammar in one pass (`pbem.mail.club`), the flow through signed mails on a real
SQLite file (and PostgreSQL when configured)."""

from __future__ import annotations

import pytest
from sqlmodel import select

from pbem.db.models import Player
from pbem.mail.club import MAX_NAME, Malformed, SetName, parse_line
from pbem.service import games, holders, players, signup, store
from pbem.service.context import Context
from pbem.service.texts import t
from tests.service.helpers import last_id, outbox, text_of
from tests.service.test_club_signup import ANN, BEA, answer, club_ctx, code_in, mail


@pytest.mark.parametrize(("line", "name"), [
    ("SET NAME Anna", "Anna"),
    ("set name:   Anna   Maria  Rossi  ", "Anna Maria Rossi"),  # the rest of the line, more than three words
    ("IMPOSTA NOME Ànna Ø'Brien-Łukasz", "Ànna Ø'Brien-Łukasz"),
    ("SET NAME Bo # a comment", "Bo"),
    ("SET NAME " + "x" * MAX_NAME, "x" * MAX_NAME),
])
def test_a_name_is_the_rest_of_the_line(line: str, name: str) -> None:
    found = parse_line(line)
    assert found == SetName(name)


@pytest.mark.parametrize(("line", "reason"), [
    ("SET NAME", "name-missing"),
    ("IMPOSTA NOME   ", "name-missing"),
    ("SET NAME " + "x" * (MAX_NAME + 1), "name-long"),
    ("SET NAME " + "word " * 400, "name-long"),
    ("SET NAME Eve <boss@example.org>", "name-chars"),
    ("SET NAME Anna\u202eannA", "name-chars"),  # a direction override would turn the line round
    ("SET NAME Anna\x07", "name-chars"),
    ("SET NAME Anna\u2028Bo", "name-chars"),  # a line separator inside the line
    ("SET NAME Anna\tRossi", "name-chars"),
])
def test_a_name_that_is_not_one_short_line_is_refused(line: str, reason: str) -> None:
    found = parse_line(line)
    assert isinstance(found, Malformed) and (found.command, found.reason) == ("SET NAME", reason)


def _name_of(ctx: Context, address: str) -> str:
    with ctx.session() as s:
        player = players.known(s, address)
        return player.name if player is not None else ""


@pytest.mark.parametrize(("lang", "keyword", "confirm"), [("en", "SET NAME", "CONFIRM"),
                                                           ("it", "IMPOSTA NOME", "CONFERMA")])
def test_set_name_by_mail_takes_effect_on_confirm(db_url: str, clock, lang: str, keyword: str, confirm: str) -> None:  # type: ignore[no-untyped-def]
    ctx = club_ctx(db_url, clock, limits={"stranger_per_day": 50})
    try:
        game_id = games.create(ctx, "duel", "Names", [games.SeatSpec("red", ANN, lang), games.SeatSpec("blue", BEA)])
        before = last_id(ctx)
        assert mail(ctx, ANN, f"{keyword} Anna  Rossi").status == "command"
        code = code_in(ctx, ANN, before)
        assert t("club.what_name", lang, name="Anna Rossi") in text_of(outbox(ctx, to=ANN, after=before)[0])
        assert _name_of(ctx, ANN) == ""  # nothing changes on a From's word
        before = last_id(ctx)
        assert mail(ctx, ANN, f"{confirm} {code}").status == "command"
        assert answer(ctx, ANN, before).strip() == t("club.name_set", lang, name="Anna Rossi")
        assert _name_of(ctx, ANN) == "Anna Rossi"
        with ctx.session() as s:  # what the other players read
            seat = store.seat(s, game_id, "red")
            assert seat is not None
            assert holders.labels(s, holders.active(s, seat)) == f"Anna Rossi <{ANN}>"
    finally:
        ctx.engine.dispose()


def test_a_bad_name_changes_nothing_and_says_why_in_the_senders_language(db_url: str, clock) -> None:  # type: ignore[no-untyped-def]
    ctx = club_ctx(db_url, clock, limits={"stranger_per_day": 50})
    try:
        games.create(ctx, "duel", "Names", [games.SeatSpec("red", ANN, "it"), games.SeatSpec("blue", BEA)])
        for line, reason, text in (("IMPOSTA NOME Eve <boss@example.org>", "name-chars", "<"),
                                   ("SET NAME " + "y" * 41, "name-long", "")):
            before = last_id(ctx)
            assert mail(ctx, ANN, line).status == "refused"
            said = answer(ctx, ANN, before)
            assert t(f"club.bad.{reason}", "it", command="SET NAME", text=text) in said
            assert "IMPOSTA NOME <nome>" in said  # the usage that follows a refusal lists it
            assert not outbox(ctx, to=ANN, kind=signup.CODE_KIND, after=before)
        with ctx.session() as s:
            assert all(p.name == "" for p in s.exec(select(Player)))
    finally:
        ctx.engine.dispose()


def test_help_lists_set_name_in_both_languages() -> None:
    assert "SET NAME <name>" in t("help.general", "en", address="pbem@localhost", kinds="")
    assert "IMPOSTA NOME <nome>" in t("help.general", "it", address="pbem@localhost", kinds="")
    assert "SET NAME <name>" in t("club.usage", "en", address="pbem@localhost")
    assert "IMPOSTA NOME <nome>" in t("club.usage", "it", address="pbem@localhost")
