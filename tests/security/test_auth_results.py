"""Authentication-Results (``security.require_dmarc``): only the topmost header of our own
MTA (``security.trusted_authserv_id``) counts; it must show dmarc=pass or a dkim=pass
aligned with the From domain. Headers below ours, or from other servers, may be forged
by the sender and are never believed."""

from __future__ import annotations

import pytest

from pbem.mail.auth import aligned, check_authentication_results, organisational_domain
from tests.security.support import orders_mail, recipients, send, sheets, with_headers
from tests.service.helpers import RED, outbox, text_of

OURS = "mx.pbem.example"


def _ar(value: str) -> str:
    return f"Authentication-Results: {value}"


@pytest.fixture
def dmarc(secure):  # type: ignore[no-untyped-def]
    return secure(require_dmarc=True, trusted_authserv_id=OURS, refusal_interval="0s")


def _send(ctx, game_id, secret, *headers, sender=RED):  # type: ignore[no-untyped-def]
    return send(ctx, with_headers(orders_mail(sender, game_id, "red", secret), *headers))


def test_dmarc_pass_from_our_mta_is_accepted(dmarc, duel):  # type: ignore[no-untyped-def]
    game_id, secrets = duel
    result = _send(dmarc, game_id, secrets["red"],
                   _ar(f"{OURS}; spf=pass smtp.mailfrom=example.org; dkim=pass header.d=example.org; "
                       "dmarc=pass (p=reject) header.from=example.org"))
    assert result.status == "orders"


def test_a_stolen_secret_with_a_forged_from_fails_dmarc(dmarc, duel):  # type: ignore[no-untyped-def]
    game_id, secrets = duel
    # Mallory knows red's secret and writes From: red; our MTA saw the domain's DMARC fail.
    result = _send(dmarc, game_id, secrets["red"],
                   _ar(f"{OURS}; spf=fail smtp.mailfrom=evil.example; dkim=none; dmarc=fail header.from=example.org"))
    assert (result.status, result.note) == ("refused", "dmarc-failed")
    notice = outbox(dmarc, kind="refusal")[-1]
    assert recipients(notice) == [RED] and "DMARC" in text_of(notice) and secrets["red"] not in text_of(notice)
    assert sheets(dmarc) == []


def test_missing_header_is_refused(dmarc, duel):  # type: ignore[no-untyped-def]
    game_id, secrets = duel
    result = _send(dmarc, game_id, secrets["red"])
    assert (result.status, result.note) == ("refused", "auth-results-missing")


def test_a_forged_header_below_ours_is_not_believed(dmarc, duel):  # type: ignore[no-untyped-def]
    game_id, secrets = duel
    forged = f"{OURS}; dkim=pass header.d=example.org; dmarc=pass header.from=example.org"
    for ours in (f"{OURS}; dkim=none; dmarc=fail header.from=example.org", f"{OURS}; none"):
        # The forger wrote a passing header with our id into his mail; our MTA put its own on top.
        raw = orders_mail(RED, game_id, "red", secrets["red"], headers=[("Authentication-Results", forged)])
        result = send(dmarc, with_headers(raw, _ar(ours)))
        assert (result.status, result.note) == ("refused", "dmarc-failed"), ours
    assert sheets(dmarc) == []


def test_headers_of_other_servers_are_not_believed(dmarc, duel):  # type: ignore[no-untyped-def]
    game_id, secrets = duel
    other_pass = _ar("mx.elsewhere.example; dkim=pass header.d=example.org; dmarc=pass header.from=example.org")
    assert _send(dmarc, game_id, secrets["red"], other_pass).note == "auth-results-missing"
    # Another server's header on top of ours (a later filter) does not outvote ours.
    ours_fail = _ar(f"{OURS}; dmarc=fail header.from=example.org")
    assert _send(dmarc, game_id, secrets["red"], other_pass, ours_fail).note == "dmarc-failed"
    # ... and ours, under a later server's header, still counts when it passes.
    ours_pass = _ar(f"{OURS.upper()} 1; dmarc=pass header.from=example.org")
    assert _send(dmarc, game_id, secrets["red"], _ar("mx.elsewhere.example; dmarc=fail"), ours_pass).status == "orders"


def test_an_unreadable_header_of_ours_is_missing_and_nothing_below_is_consulted(dmarc, duel):  # type: ignore[no-untyped-def]
    game_id, secrets = duel
    good = _ar(f"{OURS}; dmarc=pass header.from=example.org")
    assert _send(dmarc, game_id, secrets["red"], _ar(f"{OURS}; dmarc"), good).note == "auth-results-missing"


@pytest.mark.parametrize("results, ok", [
    ("dkim=pass header.d=example.org", True),
    ("dkim=pass header.d=mail.example.org", True),  # relaxed alignment: same organisational domain
    ("dkim=pass header.i=@example.org", True),
    ("dkim=pass header.d=evil.example", False),  # valid, but signed by someone else's domain
    ("dkim=fail header.d=example.org", False),
    ("dkim=pass header.d=evil.example; dkim=pass header.d=example.org", True),
    ("dmarc=pass header.from=evil.example", False),  # DMARC passed for another From
    ("dmarc=pass", False),  # no header.from: the verdict names no domain, so it vouches for none
    ("spf=pass smtp.mailfrom=example.org", False),  # SPF alone proves nothing about From
    ("dmarc=temperror", False),
])
def test_verdicts(results: str, ok: bool) -> None:
    reason = check_authentication_results([f"{OURS}; {results}"], OURS, "example.org")
    assert reason == (None if ok else "dmarc-failed")


def test_without_a_trusted_id_nothing_can_be_believed(secure, duel):  # type: ignore[no-untyped-def]
    ctx = secure(require_dmarc=True)
    game_id, secrets = duel
    assert _send(ctx, game_id, secrets["red"], _ar(f"{OURS}; dmarc=pass")).note == "auth-results-missing"


def test_the_trusted_header_alone_enforces_nothing(secure, duel):  # type: ignore[no-untyped-def]
    ctx = secure(trusted_authserv_id=OURS)
    game_id, secrets = duel
    assert _send(ctx, game_id, secrets["red"], _ar(f"{OURS}; dmarc=fail")).status == "orders"


def test_the_secret_is_checked_before_the_authentication_results(dmarc, duel):  # type: ignore[no-untyped-def]
    game_id, _ = duel
    assert _send(dmarc, game_id, "wrong-wrong-wrong", _ar(f"{OURS}; dmarc=fail")).note == "wrong-secret"


@pytest.mark.parametrize("domain, org", [
    ("example.org", "example.org"), ("mail.example.org", "example.org"), ("a.b.example.it", "example.it"),
    ("example.co.uk", "example.co.uk"), ("smtp.example.co.uk", "example.co.uk"),
    ("mx.example.com.au", "example.com.au"), ("Example.ORG.", "example.org"), ("localhost", "localhost"),
])
def test_organisational_domain(domain: str, org: str) -> None:
    assert organisational_domain(domain) == org


def test_alignment() -> None:
    assert aligned("mail.example.org", "example.org") and aligned("example.org", "lists.example.org")
    assert not aligned("example.org", "example.net") and not aligned("evil.co.uk", "victim.co.uk")
    assert not aligned("", "example.org") and not aligned("example.org", None)
