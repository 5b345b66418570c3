"""No secret at rest (issue 24.4): the key that encrypts the database's secret columns, and the
redaction of every secret line from the inbound mail we keep.

* The key: the environment variable named by ``security.secret_key_env`` (default
  ``PBEM_SECRET_KEY``), else the file ``security.key_file`` (default: beside the SQLite file the
  engine opens, ``var/pbem.key`` for ``var/pbem.sqlite``; ``var/pbem.key`` for another database), made with
  mode 0600 on first use and refused when others may read it. `attach` gives it to the engine
  (`pbem.db.sealed`): the unrevealed seeds, the reply-token key and outgoing mail are stored
  encrypted; values written before are read as they are and sealed on the first attach.
* Inbound mail is kept with every ``SEAT <seat> <secret>`` / ``POSTO …`` line redacted to
  ``SEAT <seat> [secret]`` (and the secret removed wherever else in the mail it was written),
  in every text part at any depth; the pipeline works on the original bytes, never stored.
"""

from __future__ import annotations

import base64
import email
import email.policy
import hashlib
import io
import logging
import os
import quopri
import re
import stat
from email.generator import BytesGenerator
from email.message import Message
from pathlib import Path

from cryptography.fernet import Fernet
from sqlalchemy import text as sql
from sqlalchemy.engine import URL, Engine, make_url

from pbem.config import Config
from pbem.db import sealed
from pbem.mail import single
from pbem.errors import ConfigError

log = logging.getLogger(__name__)

MARKER = "[secret]"
_SEAT_WORDS = {"seat", "posto"}
#: How a word that lower-cases to one of them starts, lower-cased: only ASCII letters lower-case
#: to s, e, p or o (tests/mail/test_redaction_fast.py looks at every character).
_SEAT_STARTS = ("se", "po")
#: A mail naming more secrets than this is not a player's order mail: its text parts are dropped.
_MAX_SECRETS = 20


# ----------------------------------------------------------------------------- the key

def key_path(cfg: Config, database: str | URL | None = None) -> Path:
    """Where the key file is (or will be made): ``security.key_file``, else beside the SQLite file
    of ``database`` (the engine's URL; the configuration's by default)."""
    if cfg.security.key_file:
        return Path(cfg.security.key_file)
    url = make_url(database if database is not None else cfg.database.url)
    if url.get_backend_name() == "sqlite" and url.database and url.database != ":memory:":
        return Path(url.database).with_suffix(".key")
    return Path("var/pbem.key")


def _from_env(value: str, name: str) -> bytes:
    """A Fernet key as given, or one derived from a long random text."""
    try:
        if len(base64.urlsafe_b64decode(value.encode("ascii"))) == 32:
            return value.encode("ascii")
    except (ValueError, UnicodeEncodeError):
        pass
    if len(value) < 32:
        raise ConfigError(f"environment variable {name}: the key for data at rest needs at least 32 characters")
    return base64.urlsafe_b64encode(hashlib.sha256(value.encode("utf-8")).digest())


def _make_file(path: Path) -> None:
    """Write a new key with mode 0600, atomically: two processes starting at once agree on one."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    try:
        os.write(fd, Fernet.generate_key() + b"\n")
        os.fsync(fd)
    finally:
        os.close(fd)
    try:
        os.link(tmp, path)  # fails if another process made it first: theirs wins
        log.warning("made a new key for data at rest: %s (back it up apart from the database: "
                    "without it the unrevealed dice seeds cannot be read)", path)
    except FileExistsError:
        pass
    finally:
        tmp.unlink(missing_ok=True)


def keyring(cfg: Config, database: str | URL | None = None) -> sealed.Keyring:
    """The key for data at rest, from the environment or the key file (made when absent)."""
    name = cfg.security.secret_key_env
    value = os.environ.get(name) if name else None
    if value:
        return sealed.Keyring(_from_env(value.strip(), name), f"environment variable {name}")
    path = key_path(cfg, database)
    if not path.exists():
        _make_file(path)
    try:
        mode = path.stat().st_mode
        if mode & (stat.S_IRWXG | stat.S_IRWXO):
            raise ConfigError(f"security.key_file {path}: readable by others (mode {stat.S_IMODE(mode):o}); "
                              f"make it private: chmod 600 {path}")
        data = path.read_bytes().strip()
    except OSError as exc:
        raise ConfigError(f"security.key_file {path}: cannot be read: {exc.strerror or exc}") from None
    return sealed.Keyring(data, f"key file {path}")


def attach(engine: Engine, cfg: Config) -> None:
    """Give the engine the key, once, and seal what an older version stored in clear."""
    if sealed.attached(engine):
        return
    sealed.attach(engine, keyring(cfg, engine.url))
    seal_legacy(engine)


#: The setting that holds the newest outbox row `seal_legacy` has seen: the rows up to it are
#: not looked at again (an older version that wrote into the database once more writes rows
#: after it, and those are looked at).
SEALED_THROUGH = "atrest.sealed_through"


def seal_legacy(engine: Engine) -> int:
    """Encrypt what an older version stored in clear: the seeds, the token key, the queued mail
    and every welcome and answer (the mails that carry secrets; old reports are left as they are,
    they hold none). Returns how many values were sealed; plain values read back as they are anyway.

    Runs at every engine's first attach (each worker's start, each command), so it reads no
    mail: the database tells which values lack the prefix (a slice of each, which PostgreSQL
    reads without the rest of an uncompressed value), and only the outbox rows after the
    newest one seen before (`SEALED_THROUGH`). It read every welcome and answer in full:
    a welcome with its map is ~300 KB, 0.6 s a start for 300 Kriegspiel games, minutes for
    a federation's history."""
    from sqlmodel import Session

    from pbem.db.models import Game, OutboxMail, Setting

    unsealed = {"text": sealed.TEXT_PREFIX, "bytes": sealed.BYTES_PREFIX, "n": len(sealed.BYTES_PREFIX)}
    with Session(engine) as session:
        mark = session.get(Setting, SEALED_THROUGH)
        through = int(mark.value) if mark is not None and mark.value.isdigit() else 0
        with engine.connect() as conn:
            newest = conn.execute(sql("SELECT max(id) FROM outbox")).scalar() or 0
            seeds = list(conn.execute(sql("SELECT id FROM game WHERE seed_hex <> '' "
                                          "AND substr(seed_hex, 1, :n) <> :text"), unsealed).scalars())
            settings = list(conn.execute(sql("SELECT name FROM setting WHERE value <> '' "
                                             "AND substr(value, 1, :n) <> :text"), unsealed).scalars())
            mails = list(conn.execute(sql("SELECT id FROM outbox WHERE id > :through "
                                          "AND (status = 'queued' OR kind IN ('welcome', 'reply')) "
                                          "AND length(raw) > 0 AND substr(raw, 1, :n) <> :bytes"),
                                      {**unsealed, "through": through}).scalars())
        for game_id in seeds:
            game = session.get(Game, game_id)
            if game is not None:
                _rewrite(game, "seed_hex")
                session.add(game)
        for name in settings:
            setting = session.get(Setting, name)
            if setting is not None:
                _rewrite(setting, "value")
                session.add(setting)
        for mail_id in mails:
            mail = session.get(OutboxMail, mail_id)
            if mail is not None:
                _rewrite(mail, "raw")
                session.add(mail)
        done = len(seeds) + len(settings) + len(mails)
        session.commit()
    if done:
        log.warning("data at rest: sealed %d value(s) an older version kept in clear", done)
    if newest > through:
        _seen_through(engine, newest)
    return done


def _seen_through(engine: Engine, newest: int) -> None:
    """Record `SEALED_THROUGH`; a worker starting at the same moment may record it first (its
    insert wins, and the next start looks at a few rows more)."""
    from sqlalchemy.exc import IntegrityError
    from sqlmodel import Session

    from pbem.db.models import Setting

    with Session(engine) as session:
        mark = session.get(Setting, SEALED_THROUGH)
        if mark is None:
            session.add(Setting(name=SEALED_THROUGH, value=str(newest)))
        elif not mark.value.isdigit() or int(mark.value) < newest:
            mark.value = str(newest)
            session.add(mark)
        try:
            session.commit()
        except IntegrityError:
            session.rollback()


def _rewrite(row: object, attribute: str) -> None:
    from sqlalchemy.orm.attributes import flag_modified

    flag_modified(row, attribute)  # the same plain value, written again: encrypted this time


# ----------------------------------------------------------------------------- inbound mail

def _seat_line(line: str) -> tuple[str, str] | None:
    """``(kept part, secret)`` of a SEAT/POSTO line with its secret (quote markers allowed), else None.
    Read as the envelope reads it: the keyword, the seat, then every other word is the secret."""
    body = line.lstrip(" \t>")
    if body[:2].lower() not in _SEAT_STARTS and not body[:1].isspace():
        return None  # the usual line: its first word does not start as SEAT or POSTO do
    words = body.split()
    if len(words) < 2 or words[0].rstrip(":").lower() not in _SEAT_WORDS:
        return None
    if len(words) == 2:  # SEAT <secret> (no seat named): a word with a digit or a dash is no seat name
        if not any(ch.isdigit() or ch == "-" for ch in words[1]):
            return None
        return line[:len(line) - len(body)] + f"{words[0]} {MARKER}", words[1]
    secret = " ".join(words[2:]).split("#", 1)[0].strip() or " ".join(words[2:])
    return line[:len(line) - len(body)] + f"{words[0]} {words[1]} {MARKER}", secret


#: A line (after its "\n", without its "\r\n" or "\n") whose first word may be SEAT or POSTO, as
#: `_seat_line` first looks at it. Each try starts at a "\n" (found by the engine's scan for it)
#: and every repeat is possessive: linear.
_MAYBE_SEAT = re.compile(r"\n([ \t>]*+(?:[sS][eE]|[pP][oO]|[^\S\r\n])[^\r\n]*+)")


def _plain_lines(text: str) -> bool:
    """Whether ``text`` breaks its lines only at "\n" and "\r\n" (ASCII: no other break
    `str.splitlines` knows, no lone "\r"): then `_MAYBE_SEAT` sees its lines as splitlines does."""
    return text.isascii() and not ("\x0b" in text or "\x0c" in text or "\x1c" in text or "\x1d" in text
                                   or "\x1e" in text) and ("\r" not in text or text.count("\r") == text.count("\r\n"))


def _seat_candidates(text: str) -> list[str]:
    """The lines of ``text`` `_seat_line` may read as SEAT lines, in order: found by one scan
    when its lines are plain (`_plain_lines`), else every line."""
    if not _plain_lines(text):
        return text.splitlines()
    return _MAYBE_SEAT.findall("\n" + text)


def secrets_in(text: str) -> list[str]:
    """The secrets written on the SEAT lines of a text, longest first."""
    found: set[str] = set()
    for line in _seat_candidates(text):
        seat = _seat_line(line)
        if seat is not None:
            found.add(seat[1])
            found.update(w for w in seat[1].split() if len(w) >= 4)  # typed in groups: each group too
    return sorted(found, key=len, reverse=True)


def redact_text(text: str, secrets: list[str]) -> str:
    """Every SEAT line with its secret replaced by the marker, and every named secret anywhere else."""
    if not _plain_lines(text):
        out = []
        for line in text.splitlines(keepends=True):
            ending = line[len(line.rstrip("\r\n")):]
            seat = _seat_line(line.rstrip("\r\n"))
            out.append(seat[0] + ending if seat is not None else line)
        redacted = "".join(out)
    else:  # the same lines, only those that may be SEAT lines looked at
        redacted = _MAYBE_SEAT.sub(_kept_line, "\n" + text)[1:]
    for secret in secrets:
        redacted = redacted.replace(secret, MARKER)
    return redacted


def _kept_line(match: re.Match[str]) -> str:
    seat = _seat_line(match.group(1))
    return "\n" + seat[0] if seat is not None else match.group()


def _text_of(part: Message, declared: str | None) -> str | None:
    """The part's text; ``declared``: its `Message.get_content_charset`, read once by the caller."""
    payload = part.get_payload(decode=True)
    if not isinstance(payload, bytes):
        return None
    try:
        return payload.decode(declared or "utf-8", "replace")
    except LookupError:  # a charset Python does not know
        return payload.decode("utf-8", "replace")


def _redact_part(part: Message, secrets: list[str], declared: str | None, text: str | None) -> None:
    """``declared`` and ``text``: the part's charset and `_text_of`, read once by the caller (a
    part's charset is read again only after it is set)."""
    if text is None:
        return
    redacted = redact_text(text, secrets)
    if redacted == text:
        return
    # Written back in the part's own transfer encoding when it is plain text, else quoted-printable:
    # the kept copy reads "SEAT north [secret]" as it is.
    cte = str(part.get("Content-Transfer-Encoding", "7bit")).strip().lower()
    charset = declared or "utf-8"
    try:
        data = redacted.encode(charset)
    except (LookupError, UnicodeEncodeError):
        charset, data = "utf-8", redacted.encode("utf-8")
    if cte not in ("7bit", "8bit") or (cte == "7bit" and not data.isascii()):
        cte, data = "quoted-printable", quopri.encodestring(data)
    if "Content-Transfer-Encoding" in part:
        part.replace_header("Content-Transfer-Encoding", cte)
    else:
        part["Content-Transfer-Encoding"] = cte
    if declared and declared != charset:
        part.set_param("charset", charset)
    part.set_payload(data.decode("ascii", "surrogateescape"))


class _Kept(email.policy.Compat32):
    """``compat32`` writing a short one-line header as ``Name: value`` without its folding
    machinery (``email.header.Header``, half the cost of a redaction): for such a value
    that machinery writes exactly this (ASCII, printable, no leading, trailing or double
    blank, within 78 characters)."""

    def fold_binary(self, name: str, value: object) -> bytes:
        if isinstance(value, str) and value.isascii() and value.isprintable() and value == value.strip() \
                and "  " not in value and len(name) + 2 + len(value) <= 78:
            return f"{name}: {value}{self.linesep}".encode("ascii")
        return super().fold_binary(name, value)  # type: ignore[arg-type]


_KEPT = _Kept(linesep="\n")
_KEPT_CRLF = _Kept(linesep="\r\n")
#: A line break as the generator reads one in a payload.
_BREAK = re.compile(r"\r\n|\r|\n")


def _flat_text(msg: Message, policy: _Kept) -> bytes:
    """The bytes ``BytesGenerator(mangle_from_=False, policy=policy).flatten(msg)`` writes of a
    message of one text part (`pbem.mail.single`): each header as the policy folds it, a blank
    line, the payload as it is with each line break made the policy's (the generator's
    ``_write_lines``). tests/mail/test_redaction_fast.py compares the two."""
    nl = policy.linesep
    payload: str = msg._payload  # type: ignore[attr-defined]  # as the generator reads it: not decoded
    if "\r" in payload:
        payload = _BREAK.sub(nl, payload)
    elif nl != "\n":
        payload = payload.replace("\n", nl)
    head = b"".join(policy.fold_binary(name, value) for name, value in msg.raw_items())
    return head + nl.encode("ascii") + payload.encode("ascii", "surrogateescape")


def _headers_only(raw: bytes) -> bytes:
    head = raw.split(b"\r\n\r\n", 1)[0] if b"\r\n\r\n" in raw else raw.split(b"\n\n", 1)[0]
    return head + b"\r\n\r\n[body removed: it held a secret that could not be redacted]\r\n"


def redact_mail(raw: bytes, text: str = "") -> bytes:
    """The copy of an inbound mail we keep: every secret line redacted, in every text part at any
    depth (a forwarded or bounced mail too), the headers as they came. ``text`` is the text the
    envelope was read from (`IncomingMail.text`): its secrets are removed everywhere as well.
    When a secret survives all that (an encoding we do not rewrite), only the headers are kept."""
    try:
        msg = single.parse(raw, email.policy.compat32)  # one part: read without the feed parser
        if msg is None:
            msg = email.message_from_bytes(raw, policy=email.policy.compat32)
        # one text part is written without the generator (`_flat_text`); another type is the
        # generator's own business (a made-up type may name one of its handlers)
        whole = msg.is_multipart() or msg.get_content_maintype() != "text"
        parts = [p for p in msg.walk() if not p.is_multipart() and p.get_content_maintype() == "text"]
        found = set(secrets_in(text))
        charsets = [part.get_content_charset() for part in parts]
        texts = [_text_of(part, declared) for part, declared in zip(parts, charsets)]
        for part_text in texts:
            if part_text and part_text.replace("\r\n", "\n") != text:  # the envelope's text: its lines read already
                found.update(secrets_in(part_text))
        secrets = sorted(found, key=len, reverse=True)[:_MAX_SECRETS]
        for part, declared, part_text in zip(parts, charsets, texts):
            _redact_part(part, secrets, declared, part_text)
        policy = _KEPT_CRLF if b"\r\n" in raw[:4096] else _KEPT
        if whole:
            buf = io.BytesIO()
            BytesGenerator(buf, mangle_from_=False, policy=policy).flatten(msg)
            out = buf.getvalue()
        else:
            out = _flat_text(msg, policy)
    except Exception:  # a mail the parser chokes on is still kept, without its body
        log.warning("could not redact an inbound mail: keeping its headers only", exc_info=True)
        return _headers_only(raw)
    if len(found) > _MAX_SECRETS or any(s.encode("utf-8") in out for s in secrets) or _has_seat_line(out):
        return _headers_only(raw)
    return out


def _has_seat_line(data: bytes) -> bool:
    """A SEAT line still holding something other than the marker."""
    for line in _seat_candidates(data.decode("utf-8", "replace")):
        seat = _seat_line(line)
        if seat is not None and seat[1] != MARKER:
            return True
    return False
