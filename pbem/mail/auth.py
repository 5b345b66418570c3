"""Is the From domain vouched for? Authentication-Results of our own MTA, and our own
DKIM check (mail.md "Who sent this?"). Pure functions: no database, no configuration.

Each check returns None when it passes, else the reason (a key of the refusal texts):

- `check_authentication_results`: ``auth-results-missing`` (no readable header from our
  own MTA) or ``dmarc-failed`` (neither dmarc=pass nor a dkim=pass aligned with From);
- `check_dkim`: ``dkim-missing`` (no signature), ``dkim-invalid`` (no signature verifies),
  ``dkim-misaligned`` (a valid signature, but for a domain unrelated to From).

Alignment is DMARC's *relaxed* alignment: the two domains share their organisational
domain. Without the Public Suffix List, the organisational domain is the last two labels,
or the last three when the name ends in a well-known second-level registry under a
country code (``example.co.uk``, ``example.com.au``, ``example.gov.it``). This is right for
the domains players use; it errs on private suffixes (``a.blogspot.com`` and
``b.blogspot.com`` count as aligned), which only matters if two seats' mail providers
hand out signing keys for sibling subdomains of one such suffix.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Callable, Sequence

import authres
import dkim
import dkim.dnsplug

__all__ = [
    "DnsTxt",
    "aligned",
    "check_authentication_results",
    "check_dkim",
    "dns_txt",
    "organisational_domain",
]

log = logging.getLogger(__name__)
_dkim_log = logging.getLogger(__name__ + ".dkimpy")  # dkimpy's own chatter

#: ``dnsfunc(name: bytes, timeout=...) -> bytes | None``: the TXT record (dkimpy's interface).
DnsTxt = Callable[..., "bytes | str | None"]

#: Second-level labels that registries under a country code hand out like top-level ones.
_SECOND_LEVEL = frozenset({"ac", "co", "com", "edu", "gob", "gov", "govt", "gv", "ltd", "me", "mil", "ne", "net",
                           "nic", "nom", "or", "org", "plc", "sch"})

_AUTHSERV = re.compile(r"^\s*(?:authentication-results\s*:\s*)?([^\s;]+)", re.IGNORECASE)


def _clean(domain: str | None) -> str:
    return (domain or "").strip().strip(".").lower()


def organisational_domain(domain: str) -> str:
    """``mail.example.org`` → ``example.org``; ``smtp.example.co.uk`` → ``example.co.uk``."""
    labels = [x for x in _clean(domain).split(".") if x]
    if len(labels) <= 2:
        return ".".join(labels)
    if len(labels[-1]) == 2 and labels[-2] in _SECOND_LEVEL:
        return ".".join(labels[-3:])
    return ".".join(labels[-2:])


def aligned(signing_domain: str | None, from_domain: str | None) -> bool:
    """Relaxed alignment: both domains have the same organisational domain."""
    a, b = _clean(signing_domain), _clean(from_domain)
    if not a or not b:
        return False
    return a == b or organisational_domain(a) == organisational_domain(b)


def domain_of(address: str | None) -> str:
    """The domain of a mail address (``""`` when there is none)."""
    return _clean((address or "").rpartition("@")[2]) if address and "@" in address else ""


# ------------------------------------------------------------ Authentication-Results

def _authserv_id(value: str) -> str:
    """The authserv-id of a header value, read leniently (also from a value authres rejects)."""
    match = _AUTHSERV.match(value)
    return match.group(1).lower() if match else ""


def _prop(result: object, ptype: str, name: str) -> str | None:
    for prop in getattr(result, "properties", ()) or ():
        if getattr(prop, "type", None) == ptype and getattr(prop, "name", None) == name:
            value = getattr(prop, "value", None)
            return str(value) if value is not None else None
    return None


def check_authentication_results(values: Sequence[str], trusted_authserv_id: str, from_domain: str) -> str | None:
    """Check the ``Authentication-Results`` header values (topmost first) for ``from_domain``.

    Only the topmost header whose authserv-id is ``trusted_authserv_id`` counts: our MTA
    prepends its header, so anything below it (or naming another server) may have been
    written by the sender. If that header cannot be parsed, nothing else is consulted.
    Passes on ``dmarc=pass`` with ``header.from`` equal to the From domain (without it, the
    verdict names no domain: it could be another one's),
    or on ``dkim=pass`` whose ``header.d`` (or the domain of ``header.i``) aligns with it.
    """
    trusted = trusted_authserv_id.strip().lower()
    sender_domain = _clean(from_domain)
    if not trusted:
        return "auth-results-missing"
    ours = next((v for v in values if _authserv_id(v) == trusted), None)
    if ours is None:
        return "auth-results-missing"
    try:
        header = authres.AuthenticationResultsHeader.parse_value(ours)
    except Exception as exc:  # authres.AuthResError and whatever a strange value provokes
        log.info("our Authentication-Results header could not be read: %s", type(exc).__name__)
        return "auth-results-missing"
    if str(header.authserv_id).lower() != trusted:  # paranoia: the lenient reading must agree
        return "auth-results-missing"
    if not sender_domain:
        return "dmarc-failed"
    for result in header.results:
        method, verdict = str(result.method).lower(), str(result.result).lower()
        if verdict != "pass":
            continue
        if method == "dmarc":
            claimed = _prop(result, "header", "from")
            if claimed is not None and _clean(claimed) == sender_domain:  # no header.from: no pass
                return None
        elif method == "dkim":
            d = _prop(result, "header", "d") or domain_of(_prop(result, "header", "i"))
            if aligned(d, sender_domain):
                return None
    return "dmarc-failed"


# --------------------------------------------------------------------------- DKIM

def dns_txt(name: bytes, timeout: int = 5) -> bytes | str | None:
    """The real DNS lookup (dnspython through dkimpy); tests replace it."""
    return dkim.dnsplug.get_txt(name, timeout=timeout)  # type: ignore[no-any-return]


def _signature_count(raw: bytes) -> int:
    try:
        return len([1 for name, _ in dkim.DKIM(raw).headers if name.lower() == b"dkim-signature"])
    except Exception:
        return 0


def check_dkim(raw: bytes, from_domain: str, dnsfunc: DnsTxt | None = None, timeout: int = 5) -> str | None:
    """Verify the mail's DKIM signatures ourselves; one valid signature whose ``d=`` aligns
    with ``from_domain`` is required. Signatures with a body length limit (``l=``) never
    count: whatever follows the signed part of the body (an order block) is unsigned."""
    lookup = dnsfunc or dns_txt
    count = _signature_count(raw)
    if count == 0:
        return "dkim-missing"
    misaligned = False
    for idx in range(count):
        verifier = dkim.DKIM(raw, logger=_dkim_log, timeout=timeout)
        try:
            ok = verifier.verify(idx=idx, dnsfunc=lookup)
        except Exception as exc:  # DKIMException, DNS errors, malformed keys
            log.info("DKIM signature %d does not verify: %s", idx, type(exc).__name__)
            continue
        if not ok:
            continue
        fields = getattr(verifier, "signature_fields", {}) or {}
        if b"l" in fields:
            log.info("DKIM signature %d ignored: it signs only part of the body (l=)", idx)
            continue
        domain = verifier.domain.decode("ascii", "replace") if isinstance(verifier.domain, bytes) else str(verifier.domain)
        if aligned(domain, from_domain):
            return None
        misaligned = True
    return "dkim-misaligned" if misaligned else "dkim-invalid"
