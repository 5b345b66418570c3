"""DKIM keys made in the test (pure Python RSA, no openssl binary, no network) and a DNS
that serves their TXT records to dkimpy."""

from __future__ import annotations

import base64
import random
from dataclasses import dataclass, field

import dkim


def _probably_prime(n: int, rng: random.Random) -> bool:
    if n < 2:
        return False
    for p in (2, 3, 5, 7, 11, 13, 17, 19, 23, 29, 31, 37):
        if n % p == 0:
            return n == p
    d, s = n - 1, 0
    while d % 2 == 0:
        d, s = d // 2, s + 1
    for _ in range(24):
        x = pow(rng.randrange(2, n - 1), d, n)
        if x in (1, n - 1):
            continue
        for _ in range(s - 1):
            x = pow(x, 2, n)
            if x == n - 1:
                break
        else:
            return False
    return True


def _prime(bits: int, rng: random.Random) -> int:
    while True:
        n = rng.getrandbits(bits) | (1 << (bits - 1)) | (1 << (bits - 2)) | 1
        if _probably_prime(n, rng) and (n - 1) % 65537:
            return n


def _der_len(n: int) -> bytes:
    if n < 0x80:
        return bytes([n])
    body = n.to_bytes((n.bit_length() + 7) // 8, "big")
    return bytes([0x80 | len(body)]) + body


def _der_int(n: int) -> bytes:
    body = n.to_bytes(n.bit_length() // 8 + 1, "big")  # a leading zero keeps it positive
    while len(body) > 1 and body[0] == 0 and body[1] < 0x80:
        body = body[1:]
    return b"\x02" + _der_len(len(body)) + body


def _der_seq(*items: bytes) -> bytes:
    body = b"".join(items)
    return b"\x30" + _der_len(len(body)) + body


@dataclass(frozen=True)
class Key:
    private_pem: bytes
    public_txt: bytes  # the DNS TXT record: v=DKIM1; k=rsa; p=...


def make_key(seed: int, bits: int = 1024) -> Key:
    rng = random.Random(seed)
    e = 65537
    while True:
        p, q = _prime(bits // 2, rng), _prime(bits // 2, rng)
        n = p * q
        if p != q and n.bit_length() == bits:
            break
    d = pow(e, -1, (p - 1) * (q - 1))
    private = _der_seq(_der_int(0), _der_int(n), _der_int(e), _der_int(d), _der_int(p), _der_int(q),
                       _der_int(d % (p - 1)), _der_int(d % (q - 1)), _der_int(pow(q, -1, p)))
    b64 = base64.b64encode(private).decode("ascii")
    lines = "\n".join(b64[i:i + 64] for i in range(0, len(b64), 64))
    pem = f"-----BEGIN RSA PRIVATE KEY-----\n{lines}\n-----END RSA PRIVATE KEY-----\n".encode("ascii")
    public = base64.b64encode(_der_seq(_der_int(n), _der_int(e)))
    return Key(pem, b"v=DKIM1; k=rsa; p=" + public)


@dataclass
class FakeDns:
    """TXT records by name; every lookup is recorded."""

    records: dict[str, bytes] = field(default_factory=dict)
    asked: list[str] = field(default_factory=list)

    def publish(self, selector: str, domain: str, key: Key) -> None:
        self.records[f"{selector}._domainkey.{domain}."] = key.public_txt

    def __call__(self, name: bytes | str, timeout: int = 5) -> bytes | None:
        text = name.decode("ascii") if isinstance(name, bytes) else name
        self.asked.append(text)
        return self.records.get(text)


def sign(raw: bytes, key: Key, domain: str, selector: str = "s1", length: bool = False) -> bytes:
    """The mail with a DKIM-Signature header of ``domain`` prepended."""
    header = dkim.sign(raw, selector.encode(), domain.encode(), key.private_pem,
                       include_headers=[b"from", b"to", b"subject", b"date", b"message-id"], length=length)
    return bytes(header) + raw
