"""Headers set raw (`pbem.mail.compose._set`, issue 17: composing a reply was mostly the email
package parsing its headers) give the very bytes the package's header classes give."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from pbem.mail import compose as composing
from pbem.mail.compose import compose

SENDERS = ['"Club PBEM" <pbem@club.example.org>', "pbem@club.example.org", '"Club (Roma), 2026" <pbem@x.it>',
           '"Círcolo" <pbem@x.it>', "Club PBEM <pbem@x.it>", '"A very long club name, longer than it should be" '
           '<a.very.long.address.indeed@club.example.org>', '"" <pbem@x.it>']
RECIPIENTS = ["red@example.org", "Red.Player+pbem@Example.ORG", ["a@x.it", "b@x.it"], "ünï@example.org",
              "x" * 70 + "@example.org"]
SUBJECTS = ["[pbem] k42 turn 7 — orders accepted", "Re: orders", "[pbem] k42 turn 7 - report", "a  b", " lead",
            "=?utf-8?q?x?= word", "[pbem] " + "long subject words " * 6, "", "tail "]
GAMES = [None, "k42", "a-b.c_d", "x" * 90]
EXTRAS = [(), (("Reply-To", "pbem+k42.red.xyz@club.example.org"),), (("Reply-To", '"Tok" <t@x.it>'),),
          (("List-Id", "<games.club.example.org>"),), (("X-Odd", "tab\there"),)]


def _both(monkeypatch: pytest.MonkeyPatch, **kw: object) -> tuple[bytes, bytes]:
    kw = {"text": "Body è\nline\n", "domain": "club.example.org", "message_id": "<m1@club.example.org>",
          "date": datetime(2026, 11, 26, 5, 0, tzinfo=UTC), **kw}
    _, fast = compose(**kw)  # type: ignore[arg-type]
    with monkeypatch.context() as m:
        m.setattr(composing, "_plain", lambda name, value: False)  # every header through the classes
        _, slow = compose(**kw)  # type: ignore[arg-type]
    return fast, slow


@pytest.mark.parametrize("sender", SENDERS)
@pytest.mark.parametrize("to", RECIPIENTS)
def test_addresses_written_raw_are_the_packages_bytes(monkeypatch: pytest.MonkeyPatch, sender: str,
                                                      to: object) -> None:
    fast, slow = _both(monkeypatch, sender=sender, to=to, subject="orders")
    assert fast == slow


@pytest.mark.parametrize("subject", SUBJECTS)
@pytest.mark.parametrize("game_id", GAMES)
@pytest.mark.parametrize("extra", EXTRAS)
def test_other_headers_written_raw_are_the_packages_bytes(monkeypatch: pytest.MonkeyPatch, subject: str,
                                                          game_id: str | None, extra: tuple[tuple[str, str], ...]) -> None:
    fast, slow = _both(monkeypatch, sender="pbem@club.example.org", to="red@example.org", subject=subject,
                       game_id=game_id, extra_headers=extra, in_reply_to="<p-1@example.org>",
                       references=("<root@club.example.org>",), auto_submitted="auto-replied")
    assert fast == slow


def test_a_players_reply_takes_the_raw_path() -> None:
    """The common headers of a reply are the ones set raw (else the cost is back)."""
    assert composing._plain("From", '"Club PBEM" <pbem@club.example.org>')
    assert composing._plain("To", "red@example.org")
    assert composing._plain("Date", "Thu, 26 Nov 2026 05:00:00 +0000")
    assert not composing._plain("Subject", "[pbem] k42 turn 7 — report")  # encoded: the package writes it
    assert not composing._plain("To", "a@x.it, b@x.it")
