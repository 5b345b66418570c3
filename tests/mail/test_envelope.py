from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from pbem.core.i18n import Catalog
from pbem.mail.envelope import WARNING_KEYS, Command, normalise_secret, parse_envelope
from pbem.mail.parse import read_mail

from . import samples


def keys(env) -> list[str]:  # type: ignore[no-untyped-def]
    return [m.key for _, m in env.problems]


def test_basic_block_with_greeting_comments_and_signature() -> None:
    env = parse_envelope(
        "Hi all,\nhere are my orders\n\n"
        "GAME k42\n"
        "SEAT north 7fq2-mh3k-p9z1        # seat and its secret\n"
        "TURN 7\n"
        "  # a comment line\n"
        "A1-B2\n"
        "\n"
        "C3 attack D4   # with a comment\n"
        "END\n"
        "-- \nAnna\n")
    assert env.found and env.problems == ()
    assert (env.game, env.seat, env.secret, env.turn) == ("k42", "north", "7fq2mh3kp9z1", 7)
    assert env.command is None
    assert env.order_lines == ((5, "A1-B2"), (7, "C3 attack D4"))


def test_italian_aliases_and_case() -> None:
    env = parse_envelope("partita K42\nPosto Nord 7FQ2 MH3K P9Z1\nturno 3\nA1-B2\nFine\n")
    assert (env.game, env.seat, env.secret, env.turn) == ("K42", "Nord", "7fq2mh3kp9z1", 3)
    assert env.order_lines == ((4, "A1-B2"),) and env.problems == ()


def test_secret_forms_normalise_alike() -> None:
    forms = ["7fq2-mh3k-p9z1", "7FQ2MH3KP9Z1", "7fq2 mh3k p9z1", "7Fq2-MH3K p9z1"]
    secrets = {parse_envelope(f"GAME g\nSEAT s {f}\nEND").secret for f in forms}
    assert secrets == {"7fq2mh3kp9z1"} == {normalise_secret(f) for f in forms}


def test_missing_end_takes_rest_and_warns() -> None:
    env = parse_envelope("GAME k1\nSEAT a b\nX1\nX2\n")
    assert env.order_lines == ((3, "X1"), (4, "X2"))
    assert keys(env) == ["envelope-end-missing"]
    assert env.errors == () and len(env.warnings) == 1


def test_quoted_lines_inside_unquoted_block_are_ignored() -> None:
    env = parse_envelope("GAME k1\nSEAT a b\n> quoted order\nX1\nEND")
    assert env.order_lines == ((4, "X1"),)


def test_fully_quoted_block_is_read() -> None:
    env = parse_envelope("Here you go\n\n> GAME k1\n> SEAT a b\n> X1\n>X2\n> END\n> bye\n")
    assert (env.game, env.seat) == ("k1", "a")
    assert env.order_lines == ((3, "X1"), (4, "X2")) and env.problems == ()


def test_unquoted_block_wins_over_quoted_template() -> None:
    text = ("GAME k1\nSEAT north s1\nMINE\nEND\n\nOn Mon, pbem wrote:\n"
            "> GAME k1\n> SEAT north <secret>\n> TEMPLATE\n> END\n")
    env = parse_envelope(text)
    assert env.order_lines == ((3, "MINE"),)


def test_outlook_quote_does_not_add_a_second_block() -> None:
    env = parse_envelope(read_mail(samples.OUTLOOK_IT_REPLY).text)
    assert (env.game, env.seat, env.secret) == ("k42", "sud", "123456789abc")
    assert env.command == ("STATUS", None) and env.problems == ()


def test_gmail_reply_block() -> None:
    env = parse_envelope(read_mail(samples.GMAIL_IT_REPLY).text)
    assert (env.game, env.seat, env.turn) == ("k42", "nord", 3)
    assert env.order_lines == ((4, "A1-B2"),) and env.problems == ()


def test_commands() -> None:
    cases = {
        "HELP": ("HELP", None), "aiuto kriegspiel": ("HELP", "kriegspiel"),
        "STATUS": ("STATUS", None), "stato": ("STATUS", None), "MAP": ("MAP", None),
        "MAPPA": ("MAP", None), "HISTORY": ("HISTORY", None), "storia 4": ("HISTORY", "4"),
        "ORDERS": ("ORDERS", None), "ordini": ("ORDERS", None),
        "SECRET NEW": ("SECRET NEW", None), "segreto nuovo": ("SECRET NEW", None),
    }
    for line, expected in cases.items():
        env = parse_envelope(f"GAME k1\nSEAT a b\n{line}\nEND")
        assert env.command == expected, line
        assert env.command == Command(*expected)
        assert env.problems == () and env.order_lines == (), line


def test_problems() -> None:
    env = parse_envelope("GAME k1\nSEAT a b\nSEAT c d\nTURN x\nSTATUS\nMAP\nX1\nEND")
    assert keys(env) == ["envelope-seat-duplicate", "envelope-turn-not-number",
                         "envelope-command-duplicate", "envelope-command-with-orders"]
    assert [n for n, _ in env.problems] == [3, 4, 6, 7]
    assert env.seat == "a" and env.turn is None and env.command == ("STATUS", None)
    env = parse_envelope("GAME\nSEAT north\nTURN 1\nTURN 2\nHISTORY x\nSECRET foo\nEND")
    assert keys(env) == ["envelope-game-missing-id", "envelope-secret-missing",
                         "envelope-turn-duplicate", "envelope-history-not-number",
                         "envelope-secret-new-expected"]
    env = parse_envelope("GAME k1\nX1\nEND")
    assert keys(env) == ["envelope-seat-missing"]


def test_no_block_and_help_request() -> None:
    env = parse_envelope("Hello, how do I play?\nHELP\n")
    assert not env.found and env.command is None
    assert keys(env) == ["envelope-no-game-block"] and env.problems[0][0] == 0
    env = parse_envelope("\n  # hi\nAIUTO corteo\nthanks\n")
    assert env.command == ("HELP", "corteo") and env.game is None and env.problems == ()
    assert env.is_help_request


def test_every_problem_key_has_texts_in_both_languages() -> None:
    catalog = Catalog.from_package("pbem.mail")
    import inspect
    import re

    import pbem.mail.envelope as module
    used = set(re.findall(r'msg\("([a-z-]+)"', inspect.getsource(module)))
    assert used and used | WARNING_KEYS
    for key in used | WARNING_KEYS:
        assert catalog.has(key, "en") and catalog.has(key, "it"), key


@settings(max_examples=400, deadline=None)
@given(st.text(max_size=400))
def test_parse_envelope_never_raises_on_text(text: str) -> None:
    env = parse_envelope(text)
    assert isinstance(env.problems, tuple)


_tokens = st.sampled_from(["GAME", "PARTITA", "END", "FINE", "SEAT", "POSTO", "TURN", "TURNO",
                           "HELP", "STATUS", "MAP", "HISTORY", "ORDERS", "SECRET", "NEW", "#",
                           ">", "> >", "k42", "7", "x", "-", ":", "On", "wrote:", "Da:", "\t"])


@settings(max_examples=400, deadline=None)
@given(st.lists(st.lists(_tokens, max_size=5).map(" ".join), max_size=20))
def test_parse_envelope_never_raises_on_keyword_soup(lines: list[str]) -> None:
    env = parse_envelope("\n".join(lines))
    for lineno, text in env.order_lines:
        assert lineno >= 2 and text and "#" not in text


def test_block_runs_to_end_across_a_header_like_line() -> None:
    env = parse_envelope("GAME k1\nSEAT a b\nFrom: F10\nSent: G11\nTo: H12\nEND\n")
    assert env.order_lines == ((3, "From: F10"), (4, "Sent: G11"), (5, "To: H12"))
    assert env.problems == ()


def test_without_end_the_block_stops_at_the_quoted_reply() -> None:
    text = ("GAME k1\nSEAT a b\nX1\n\n________________________________\nDa: pbem\n"
            "Inviato: ieri\nA: anna\nOggetto: x\n\nGAME k1\nSEAT a <secret>\nEND\n")
    env = parse_envelope(text)
    assert env.order_lines == ((3, "X1"),)
    assert [m.key for _, m in env.problems] == ["envelope-end-missing"]
