"""Our own DKIM check (``security.verify_dkim``, dkimpy) with keys made in the test and a
DNS injected in their place: a valid signature whose d= aligns with the From domain is
required."""

from __future__ import annotations

import dkim
import pytest

from tests.security.dkimkeys import sign
from tests.security.support import orders_mail, recipients, send, sheets, with_headers
from tests.service.helpers import RED, outbox, text_of


@pytest.fixture
def strict(secure, dns, keys):  # type: ignore[no-untyped-def]
    dns.publish("s1", "example.org", keys["good"])
    dns.publish("s1", "mail.example.org", keys["good"])
    dns.publish("evil", "evil.example", keys["other"])
    return secure(verify_dkim=True, refusal_interval="0s")


def test_an_aligned_valid_signature_passes(strict, duel, keys, dns):  # type: ignore[no-untyped-def]
    game_id, secrets = duel
    raw = sign(orders_mail(RED, game_id, "red", secrets["red"]), keys["good"], "example.org")
    # Our MTA adds its own headers on top after the signature was made: still valid.
    result = send(strict, with_headers(raw, "Received: from mx by mx.pbem.example; Mon, 23 Nov 2026 09:00:00 +0000"))
    assert result.status == "orders" and dns.asked == ["s1._domainkey.example.org."]


def test_a_subdomain_signature_aligns_relaxed(strict, duel, keys):  # type: ignore[no-untyped-def]
    game_id, secrets = duel
    raw = sign(orders_mail(RED, game_id, "red", secrets["red"]), keys["good"], "mail.example.org")
    assert send(strict, raw).status == "orders"


def test_an_altered_body_fails(strict, duel, keys):  # type: ignore[no-untyped-def]
    game_id, secrets = duel
    raw = sign(orders_mail(RED, game_id, "red", secrets["red"], ["PLAY 2"]), keys["good"], "example.org")
    result = send(strict, raw.replace(b"PLAY 2", b"PLAY 3"))
    assert (result.status, result.note) == ("refused", "dkim-invalid")
    notice = outbox(strict, kind="refusal")[-1]
    assert recipients(notice) == [RED] and "does not verify" in text_of(notice)
    assert secrets["red"] not in text_of(notice) and sheets(strict) == []


def test_a_valid_signature_of_another_domain_is_misaligned(strict, duel, keys):  # type: ignore[no-untyped-def]
    game_id, secrets = duel
    raw = sign(orders_mail(RED, game_id, "red", secrets["red"]), keys["other"], "evil.example", selector="evil")
    result = send(strict, raw)
    assert (result.status, result.note) == ("refused", "dkim-misaligned")
    assert "other than the sender" in text_of(outbox(strict, kind="refusal")[-1])


def test_a_signature_made_with_another_key_fails(strict, duel, keys):  # type: ignore[no-untyped-def]
    game_id, secrets = duel
    raw = sign(orders_mail(RED, game_id, "red", secrets["red"]), keys["other"], "example.org")  # not the published key
    assert send(strict, raw).note == "dkim-invalid"


def test_no_signature_or_no_key_in_dns(strict, duel, keys):  # type: ignore[no-untyped-def]
    game_id, secrets = duel
    assert send(strict, orders_mail(RED, game_id, "red", secrets["red"])).note == "dkim-missing"
    raw = sign(orders_mail(RED, game_id, "red", secrets["red"]), keys["good"], "example.org", selector="gone")
    assert send(strict, raw).note == "dkim-invalid"
    assert sheets(strict) == []


def test_a_dns_failure_refuses_without_an_error(strict, duel, keys, monkeypatch):  # type: ignore[no-untyped-def]
    from pbem.service import identity

    game_id, secrets = duel

    def broken(name, timeout=5):  # type: ignore[no-untyped-def]
        raise OSError("resolver unreachable")

    monkeypatch.setattr(identity, "dns_txt", broken)
    raw = sign(orders_mail(RED, game_id, "red", secrets["red"]), keys["good"], "example.org")
    result = send(strict, raw)
    assert (result.status, result.note, sheets(strict)) == ("refused", "dkim-invalid", [])


def test_a_body_length_limit_lets_anyone_append_so_it_does_not_count(strict, duel, keys, dns):  # type: ignore[no-untyped-def]
    game_id, secrets = duel
    innocent = orders_mail(RED, game_id, "red", secrets["red"])
    signed = sign(innocent, keys["good"], "example.org", length=True)
    appended = signed.rstrip(b"\r\n") + b"\r\nGAME " + game_id.encode() + b"\r\nSEAT red " + secrets["red"].encode() \
        + b"\r\nPLAY 3\r\nEND\r\n"
    assert dkim.verify(appended, dnsfunc=dns)  # dkimpy alone would accept the appended block
    assert send(strict, appended).note == "dkim-invalid"


def test_one_aligned_signature_among_several_is_enough(strict, duel, keys):  # type: ignore[no-untyped-def]
    game_id, secrets = duel
    raw = orders_mail(RED, game_id, "red", secrets["red"])
    # A mailing service's own signature on top of the author's, as providers add them.
    twice = sign(sign(raw, keys["good"], "example.org"), keys["other"], "evil.example", selector="evil")
    assert send(strict, twice).status == "orders"


def test_dns_is_asked_only_after_the_cheap_checks(strict, duel, keys, dns):  # type: ignore[no-untyped-def]
    game_id, _ = duel
    raw = sign(orders_mail(RED, game_id, "red", "not-the-secret"), keys["good"], "example.org")
    assert send(strict, raw).note == "wrong-secret" and dns.asked == []


def test_dkim_and_dmarc_together(secure, dns, keys, duel):  # type: ignore[no-untyped-def]
    ctx = secure(verify_dkim=True, require_dmarc=True, trusted_authserv_id="mx.pbem.example")
    dns.publish("s1", "example.org", keys["good"])
    game_id, secrets = duel
    raw = sign(orders_mail(RED, game_id, "red", secrets["red"]), keys["good"], "example.org")
    ar = "Authentication-Results: mx.pbem.example; dkim=pass header.d=example.org; dmarc=pass header.from=example.org"
    assert send(ctx, with_headers(raw, ar)).status == "orders"
    forged = orders_mail(RED, game_id, "red", secrets["red"], ["PLAY 3"])
    assert send(ctx, with_headers(forged, ar)).note == "dkim-missing"  # a header's word never replaces our check


def test_a_signed_mail_replayed_under_a_new_message_id_breaks_its_signature(strict, duel, keys):  # type: ignore[no-untyped-def]
    game_id, secrets = duel
    raw = sign(orders_mail(RED, game_id, "red", secrets["red"], ["PLAY 1"], message_id="<signed@example.org>"),
               keys["good"], "example.org")
    assert send(strict, raw).status == "orders"
    assert send(strict, raw).status == "duplicate"
    replayed = send(strict, raw.replace(b"<signed@example.org>", b"<replayed@example.org>"))
    assert (replayed.status, replayed.note) == ("refused", "dkim-invalid")
