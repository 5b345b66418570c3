from __future__ import annotations

import pytest

from pbem.mail.classify import machine_reason
from pbem.mail.compose import compose
from pbem.mail.parse import read_mail

from . import samples


def test_human_mail_is_answered() -> None:
    assert machine_reason(read_mail(samples.HUMAN)) is None
    assert machine_reason(read_mail(samples.LATIN1_QP)) is None
    assert machine_reason(read_mail(samples.GMAIL_IT_REPLY)) is None
    assert machine_reason(read_mail(samples.OUTLOOK_IT_REPLY)) is None


def test_vacation_auto_reply() -> None:
    reason = machine_reason(read_mail(samples.VACATION))
    assert reason is not None and reason.startswith("auto-submitted")


def test_dsn_bounce() -> None:
    reason = machine_reason(read_mail(samples.DSN_BOUNCE))
    assert reason is not None and reason.startswith("report")


def test_mailing_list_copy() -> None:
    reason = machine_reason(read_mail(samples.MAILING_LIST))
    assert reason is not None and reason.split(":")[0] in ("precedence", "mailing-list")


def test_our_own_mail_coming_back() -> None:
    _, raw = compose(sender="pbem@localhost", to="a@example.com", subject="s", text="t",
                     domain="localhost", game_id="k42")
    reason = machine_reason(read_mail(raw))
    assert reason == "own-marker: X-PBEM-Game"


def _mail(headers: str, sender: str = "anna@example.com") -> bytes:
    return (f"From: {sender}\r\nMessage-ID: <x@y>\r\n{headers}"
            f"Content-Type: text/plain\r\n\r\nHELP\r\n").encode()


@pytest.mark.parametrize("headers,tag", [
    ("Auto-Submitted: auto-generated\r\n", "auto-submitted"),
    ("Auto-Submitted: auto-notified; owner-email=x@y\r\n", "auto-submitted"),
    ("Precedence: bulk\r\n", "precedence"),
    ("Precedence: junk\r\n", "precedence"),
    ("Precedence: auto_reply\r\n", "precedence"),
    ("List-Id: <x.y>\r\n", "mailing-list"),
    ("List-Post: <mailto:x@y>\r\n", "mailing-list"),
    ("X-Auto-Response-Suppress: All\r\n", "auto-header"),
    ("X-Autorespond: yes\r\n", "auto-header"),
    ("X-Loop: pbem\r\n", "auto-header"),
    ("Return-Path: <>\r\n", "null-return-path"),
])
def test_machine_headers(headers: str, tag: str) -> None:
    reason = machine_reason(read_mail(_mail(headers)))
    assert reason is not None and reason.startswith(tag)


def test_auto_submitted_no_is_human() -> None:
    assert machine_reason(read_mail(_mail("Auto-Submitted: no\r\nPrecedence: normal\r\n"))) is None


@pytest.mark.parametrize("sender", ["MAILER-DAEMON@mx.example.net", "postmaster@example.com",
                                    "no-reply@example.com", "noreply+abc@example.com",
                                    "bounces+123@example.com", "do-not-reply@example.com"])
def test_robot_senders(sender: str) -> None:
    reason = machine_reason(read_mail(_mail("", sender)))
    assert reason is not None and reason.startswith("robot-sender")


def test_custom_marker() -> None:
    mail = read_mail(_mail("X-Other-Game: 1\r\n"))
    assert machine_reason(mail) is None
    assert machine_reason(mail, own_marker="X-Other-Game") is not None
