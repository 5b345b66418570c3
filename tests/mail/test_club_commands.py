"""The club's commands outside a seat's block (architecture 2.8): typed, bilingual, linear."""

from __future__ import annotations

from datetime import date

import pytest

from pbem.mail.club import (CancelAbsence, Confirm, Games, Join, Malformed, SetAbsence, SetLanguage, SetZone,
                            Takeover, find_command, parse_line)
from pbem.mail.envelope import parse_envelope

from tests.mail import hostile


@pytest.mark.parametrize("line, expected", [
    ("GAMES", Games()),
    ("partite", Games()),
    ("JOIN a3", Join("a3")),
    ("entra A3 Red", Join("a3", "red")),
    ("TAKEOVER a3 blue", Takeover("a3", "blue")),
    ("Subentra a3 blue", Takeover("a3", "blue")),
    ("CONFIRM K7QM-2XPD", Confirm("k7qm2xpd")),
    ("conferma k7qm 2xpd", Confirm("k7qm2xpd")),
    ("ABSENCE 2026-12-20 2027-01-06", SetAbsence(date(2026, 12, 20), date(2027, 1, 6))),
    ("assenza 2026-12-20 2026-12-20", SetAbsence(date(2026, 12, 20), date(2026, 12, 20))),
    ("ABSENCE CANCEL", CancelAbsence()),
    ("assenza annulla", CancelAbsence()),
    ("SET ZONE Europe/London", SetZone("Europe/London")),
    ("imposta fuso America/Argentina/Buenos_Aires", SetZone("America/Argentina/Buenos_Aires")),
    ("SET LANGUAGE it", SetLanguage("it")),
    ("IMPOSTA LINGUA EN", SetLanguage("en")),
    ("join: a3   # a comment", Join("a3")),
])
def test_each_command_in_english_and_italian(line: str, expected: object) -> None:
    assert parse_line(line) == expected


@pytest.mark.parametrize("line, reason, text", [
    ("GAMES please", "extra", "please"),
    ("JOIN", "game-missing", ""),
    ("JOIN a3 red blue", "extra", "blue"),
    ("JOIN a<3>", "name", "a<3>"),
    ("TAKEOVER a3", "seat-missing", ""),
    ("TAKEOVER", "game-missing", ""),
    ("CONFIRM", "code-missing", ""),
    ("CONFIRM ÄÖÜ", "code", "ÄÖÜ"),
    ("ABSENCE 2026-12-20", "dates-missing", ""),
    ("ABSENCE 2026-13-01 2026-12-31", "date", "2026-13-01"),
    ("ABSENCE 2026-12-01 31/12/2026", "date", "31/12/2026"),
    ("ABSENCE 2026-02-30 2026-03-01", "date", "2026-02-30"),
    ("SET ZONE", "zone-missing", ""),
    ("SET ZONE Europe/London extra", "extra", "extra"),
    ("SET ZONE Europe;rm", "zone", "Europe;rm"),
    ("SET LANGUAGE fr", "language", "fr"),
    ("SET COLOUR blue", "set-what", "COLOUR"),
])
def test_bad_arguments_name_their_reason(line: str, reason: str, text: str) -> None:
    got = parse_line(line)
    assert isinstance(got, Malformed)
    assert (got.reason, got.text) == (reason, text)


def test_other_lines_are_not_club_commands() -> None:
    for line in ("", "   ", "# JOIN a3", "A1-B2", "Hello, I would like to play", "GAME a3", "HELP"):
        assert parse_line(line) is None


def test_alone_on_a_line_of_the_mail_quoted_lines_skipped() -> None:
    env = parse_envelope("Hello!\n\nI'd like to play.\nJOIN a3 red\n\nThanks,\nAnna\n")
    assert env.club == Join("a3", "red") and env.game is None and env.problems == ()
    env = parse_envelope("> JOIN a3 red\n\nThanks\n")
    assert env.club is None and env.problems[0][1].key == "envelope-no-game-block"


def test_a_greeting_that_starts_with_a_keyword_does_not_hide_the_command() -> None:
    assert find_command(["Join us on Friday!", "CONFIRM abcd-efgh"]) == Confirm("abcdefgh")
    assert find_command(["Join us on Friday!"]) == Malformed("JOIN", "extra", "Friday!")


def test_help_first_line_still_wins() -> None:
    assert parse_envelope("HELP\nGAMES\n").command is not None


def test_inside_a_block_without_seat_the_game_is_the_blocks() -> None:
    env = parse_envelope("GAME a3\nJOIN red\nEND\n")
    assert env.club == Join("a3", "red") and env.game == "a3" and env.problems == ()
    assert parse_envelope("PARTITA a3\nENTRA\nFINE\n").club == Join("a3")
    assert parse_envelope("GAME a3\nJOIN a3 red\nEND\n").club == Join("a3", "red")
    assert parse_envelope("GAME a3\nTAKEOVER blue\nEND\n").club == Takeover("a3", "blue")
    assert parse_envelope("GAME a3\nCONFIRM abcd\nEND\n").club == Confirm("abcd")


def test_a_block_with_a_seat_is_orders_never_a_club_command() -> None:
    env = parse_envelope("GAME a3\nSEAT red 7fq2-mh3k-p9z1\nJOIN blue\nEND\n")
    assert env.club is None and env.order_lines == ((3, "JOIN blue"),)


def test_a_block_without_seat_and_with_orders_is_still_refused() -> None:
    env = parse_envelope("GAME a3\nA1-B2\nEND\n")
    assert env.club is None and any(m.key == "envelope-seat-missing" for _, m in env.problems)


@pytest.mark.parametrize("unit", ["JOIN a " + "-" * 40 + "\n", "SET ", "CONFIRM " + "ab-" * 30 + "\n",
                                  "ABSENCE 2026-12-20 ", "x\n"])
def test_linear_on_hostile_text(unit: str) -> None:
    """Lines of keywords and separators, 10 KB and 100 KB: the larger costs under 20 times the
    smaller (the growth harness of tests/mail/test_growth.py)."""
    small, large = hostile.grow(unit, hostile.SMALL), hostile.grow(unit, hostile.LARGE)
    ratio = hostile.growth(lambda: parse_envelope(small), lambda: parse_envelope(large))
    assert ratio < hostile.MAX_RATIO
