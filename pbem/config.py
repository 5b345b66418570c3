"""The configuration file (TOML), read strictly: an unknown key is an error.

Relative paths in the file (the SQLite database, the embedded maildir, the key file, a
CA file) are taken from the folder of the file itself, never from the current
directory: `pbem game list` run from elsewhere finds the same data. Credentials for
real mail servers never live in the file: it names the environment variables to read.
"""

from __future__ import annotations

import dataclasses
import math
import os
import re
import socket
import ssl
import tomllib
from dataclasses import dataclass, field
from datetime import timedelta
from pathlib import Path
from typing import Any, Mapping
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from pbem.errors import ConfigError

DEFAULT_PATH = Path("config/pbem.toml")
_DURATION = re.compile(r"(\d+(?:\.\d+)?)\s*([dhms])", re.IGNORECASE)
_UNITS = {"d": 86400, "h": 3600, "m": 60, "s": 1}
#: No deadline, interval or delay is longer than ten years: beyond it a date overflows soon enough.
MAX_DURATION = timedelta(days=3650)


def parse_duration(text: str) -> timedelta:
    """'72h', '1h30m', '2d', '45s' -> timedelta; a bare number is hours."""
    raw = str(text).strip().lower()
    if len(raw) > 64:
        raise ConfigError(f"not a duration: {text!r:.40}… (examples: 72h, 1h30m, 2d, 45s)")
    if re.fullmatch(r"\d+(\.\d+)?", raw):
        seconds = float(raw) * 3600
    else:
        pos, seconds = 0, 0.0
        for m in _DURATION.finditer(raw):
            if raw[pos:m.start()].strip():
                break
            seconds += float(m.group(1)) * _UNITS[m.group(2)]
            pos = m.end()
        if pos == 0 or raw[pos:].strip():
            raise ConfigError(f"not a duration: {text!r} (examples: 72h, 1h30m, 2d, 45s)")
    if not seconds <= MAX_DURATION.total_seconds():  # also inf, from a long run of digits
        raise ConfigError(f"duration {text!r} is longer than {MAX_DURATION.days} days")
    return timedelta(seconds=seconds)


def format_duration(delta: timedelta) -> str:
    total = int(delta.total_seconds())
    parts = []
    for unit, size in (("d", 86400), ("h", 3600), ("m", 60), ("s", 1)):
        if total >= size:
            parts.append(f"{total // size}{unit}")
            total %= size
    return "".join(parts) or "0s"


@dataclass(frozen=True)
class ServerConfig:
    name: str = "pbem"
    address: str = "pbem@localhost"
    bounce_address: str = "pbem-bounces@localhost"
    domain: str = "localhost"
    timezone: str = "Europe/Rome"
    language: str = "en"
    game_master: str = ""  # told about bounces and server errors; empty: nobody


@dataclass(frozen=True)
class DatabaseConfig:
    url: str = "sqlite:///var/pbem.sqlite"
    url_env: str = ""  # read the whole URL from this environment variable instead
    password_env: str = ""  # put this environment variable's value into the URL as its password
    #: "one": one daemon serves the database (a second is refused); "shared" (PostgreSQL
    #: only): several `pbem serve` workers share the work (pbem.service.claims)
    workers: str = "one"

    def resolved(self) -> "DatabaseConfig":
        """The URL with what the environment holds: passwords never live in the file. Read
        when the database is opened (a command that needs none needs no password either)."""
        url = self.url
        if self.url_env:
            url = os.environ.get(self.url_env, "")
            if not url:
                raise ConfigError(f"database.url_env: environment variable {self.url_env} is not set")
        if self.password_env:
            password = os.environ.get(self.password_env)
            if password is None:
                raise ConfigError(f"database.password_env: environment variable {self.password_env} is not set")
            from sqlalchemy.engine import make_url
            from sqlalchemy.exc import ArgumentError

            try:
                url = make_url(url).set(password=password).render_as_string(hide_password=False)
            except ArgumentError as exc:
                raise ConfigError(f"database.url: {exc}") from exc
        return dataclasses.replace(self, url=url)


@dataclass(frozen=True)
class EmbeddedMailConfig:
    host: str = "127.0.0.1"
    imap_port: int = 1143
    smtp_port: int = 2525
    maildir: str = "var/mail"
    domains: tuple[str, ...] = ("localhost",)
    password: str = "pbem"


@dataclass(frozen=True)
class RemoteServerConfig:
    host: str = ""
    port: int = 0
    security: str = "tls"  # "tls" (implicit), "starttls" or "none"
    username_env: str = ""
    password_env: str = ""
    mailbox: str = "INBOX"
    ca_file: str = ""  # trust this CA (a club's own certificate); empty: the system's CAs
    helo_name: str = ""  # SMTP only: the name we give in EHLO; empty: helo_name() below

    def ssl_context(self) -> "ssl.SSLContext | None":
        if self.security == "none":
            return None
        try:
            return ssl.create_default_context(cafile=self.ca_file or None)
        except (OSError, ssl.SSLError) as exc:
            raise ConfigError(f"cannot load ca_file {self.ca_file!r}: {exc}") from exc

    def credentials(self) -> tuple[str | None, str | None]:
        """Read the username and password from the environment variables named here."""
        user = os.environ.get(self.username_env) if self.username_env else None
        password = os.environ.get(self.password_env) if self.password_env else None
        if self.password_env and password is None:
            raise ConfigError(f"environment variable {self.password_env} is not set")
        return user, password


@dataclass(frozen=True)
class MailConfig:
    backend: str = "embedded"  # "embedded" | "remote"
    poll_seconds: float = 30.0
    idle: bool = True
    max_size: int = 10_000_000
    embedded: EmbeddedMailConfig = field(default_factory=EmbeddedMailConfig)
    imap: RemoteServerConfig = field(default_factory=lambda: RemoteServerConfig(port=993))
    smtp: RemoteServerConfig = field(default_factory=lambda: RemoteServerConfig(port=465))


@dataclass(frozen=True)
class GamesConfig:
    deadline: str = "72h"
    reminders: tuple[str, ...] = ("24h", "2h")
    grace: str = "0h"
    early_resolution: bool = True
    warn_after_misses: int = 1
    abandon_after_misses: int = 3
    decision_deadline: str = "12h"
    absence_days: int = 14  # days of deadlines moved for one player's absences, per game (0: never)


@dataclass(frozen=True)
class OutboxConfig:
    retry_first: str = "30s"
    retry_max: str = "1h"
    give_up: str = "48h"  # a mail the server keeps refusing for a while (4xx) fails after this
    drain_seconds: float = 10.0
    probe_max: str = "5m"  # a server that cannot be used is tried again at most this far apart
    connections: int = 4  # SMTP connections the outbox sends on at once (each player's mails in order on one)


@dataclass(frozen=True)
class SecurityConfig:
    """Who may act for a seat (docs: README, security). The secret and the registered
    address are always checked; the rest are layers a club turns on."""

    reply_tokens: bool = False  # per-seat reply addresses: <local>+<token>@<domain>
    token_key_env: str = "PBEM_TOKEN_KEY"  # HMAC key for the tokens (else one is kept in the database)
    trusted_authserv_id: str = ""  # our own MTA's authserv-id in Authentication-Results
    require_dmarc: bool = False  # require dmarc=pass or an aligned dkim=pass from that header
    verify_dkim: bool = False  # check DKIM signatures ourselves (dkimpy)
    refusal_interval: str = "1h"  # at most one refusal notice per seat and reason in this time
    # The key encrypting the unrevealed seeds, the token key and outgoing mail in the database
    # (pbem.service.atrest): this environment variable, else this file (made 0600 on first use;
    # empty: beside the SQLite file as <name>.key, or var/pbem.key for another database).
    secret_key_env: str = "PBEM_SECRET_KEY"
    key_file: str = ""


@dataclass(frozen=True)
class LimitsConfig:
    """Loop breakers, two budgets apart (see `pbem.service.limits`): answers to a seat's own
    authenticated mail, which only that player can spend, and answers to unauthenticated
    mail, which any forger can. 0 means no answers of that sort."""

    per_sender_per_hour: int = 60  # answers to one player's authenticated mail
    global_per_hour: int = 5000  # answers to authenticated mail, everybody together
    stranger_per_day: int = 1  # answers to one address's unauthenticated mail (0 = none)
    strangers_per_hour: int = 100  # answers to unauthenticated mail, everybody together
    mail_seconds: float = 10.0  # time one inbound mail may take to be read (0 = no budget)


@dataclass(frozen=True)
class ClubConfig:
    """Sign-up by mail (docs: README, "Running a club"). ``signup``: who may JOIN or TAKEOVER,
    as addresses (``ann@example.org``) or whole domains (``*@example.org``); empty: anybody."""

    signup: tuple[str, ...] = ()
    confirm_within: str = "48h"  # a one-time code (JOIN, TAKEOVER, ABSENCE, SET) expires after this
    games_reliability: bool = False  # GAMES shows the reliability of the players already seated in open games

    def may_sign_up(self, address: str) -> bool:
        """Is ``address`` on the club's roster (an exact address, or ``*@domain``)?"""
        if not self.signup:
            return True
        addr = address.strip().lower()
        domain = addr.rpartition("@")[2]
        return any(p.lower() == addr or p.lower() == f"*@{domain}" for p in self.signup)


@dataclass(frozen=True)
class SiteConfig:
    """The club's static website (``pbem site build``, docs/club.md). ``url``: where it is
    published (the feeds' links); ``show_addresses``: players' mail addresses on their pages."""

    title: str = "pbem club"
    url: str = ""
    show_addresses: bool = False


@dataclass(frozen=True)
class RetentionConfig:
    """How long mail is kept whole (docs/operations.md, "What is stored"). After ``raw_mail``
    a sent (or given up) outgoing mail keeps only a copy with its secrets redacted."""

    raw_mail: str = "30d"


@dataclass(frozen=True)
class RenderConfig:
    width: int = 1600
    workers: int = 1  # processes drawing report maps beside the daemon; 0 = a thread of the daemon


@dataclass(frozen=True)
class Config:
    server: ServerConfig = field(default_factory=ServerConfig)
    database: DatabaseConfig = field(default_factory=DatabaseConfig)
    mail: MailConfig = field(default_factory=MailConfig)
    games: GamesConfig = field(default_factory=GamesConfig)
    outbox: OutboxConfig = field(default_factory=OutboxConfig)
    render: RenderConfig = field(default_factory=RenderConfig)
    security: SecurityConfig = field(default_factory=SecurityConfig)
    limits: LimitsConfig = field(default_factory=LimitsConfig)
    club: ClubConfig = field(default_factory=ClubConfig)
    site: SiteConfig = field(default_factory=SiteConfig)
    retention: RetentionConfig = field(default_factory=RetentionConfig)
    source: str = "<defaults>"

    @property
    def zone(self) -> ZoneInfo:
        return ZoneInfo(self.server.timezone)


def helo_name(cfg: "Config") -> str:
    """The name pbem gives in EHLO: ``mail.smtp.helo_name``, else the machine's fully
    qualified name, else (a bare or local name, as in containers) the domain of
    ``server.address``. Servers that check it want a real name, never "localhost"."""
    if cfg.mail.smtp.helo_name:
        return cfg.mail.smtp.helo_name
    fqdn = socket.getfqdn()
    if "." in fqdn and not fqdn.startswith("localhost") and not fqdn.endswith((".local", ".localdomain")):
        return fqdn
    return cfg.server.address.rpartition("@")[2] or cfg.server.domain


def _build(cls: type, data: Mapping[str, Any], where: str) -> Any:
    """Build dataclass ``cls`` from ``data``; unknown keys and wrong types are errors."""
    table = f"[{where}]" if where else "the top level"
    if not isinstance(data, Mapping):
        raise ConfigError(f"{table} must be a table")
    fields = {f.name: f for f in dataclasses.fields(cls) if f.name != "source"}
    unknown = sorted(set(data) - set(fields))
    if unknown:
        known = ", ".join(sorted(fields))
        bad = f"{where}.{unknown[0]}" if where else unknown[0]
        raise ConfigError(f"unknown key {bad} (known keys in {table}: {known})")
    kwargs: dict[str, Any] = {}
    defaults = cls()
    for name, value in data.items():
        default = getattr(defaults, name)
        key = f"{where}.{name}" if where else name
        if dataclasses.is_dataclass(default):
            kwargs[name] = _build(type(default), value, key)
        elif isinstance(default, tuple):
            if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
                raise ConfigError(f"{key} must be a list of strings")
            kwargs[name] = tuple(value)
        elif isinstance(default, bool):
            if not isinstance(value, bool):
                raise ConfigError(f"{key} must be true or false")
            kwargs[name] = value
        elif isinstance(default, (int, float)):
            if isinstance(value, bool) or not isinstance(value, (int, float)):
                raise ConfigError(f"{key} must be a number")
            if not math.isfinite(value):
                raise ConfigError(f"{key} must be a finite number, not {value}")
            if isinstance(default, int) and value != int(value):
                raise ConfigError(f"{key} must be a whole number, not {value}")
            kwargs[name] = type(default)(value)
        else:
            if not isinstance(value, str):
                raise ConfigError(f"{key} must be a string")
            kwargs[name] = value
    return cls(**kwargs)


def _validate(cfg: Config) -> None:
    if cfg.mail.backend not in ("embedded", "remote"):
        raise ConfigError(f"mail.backend must be 'embedded' or 'remote', not {cfg.mail.backend!r}")
    for where, server in (("mail.imap", cfg.mail.imap), ("mail.smtp", cfg.mail.smtp)):
        if server.security not in ("tls", "starttls", "none"):
            raise ConfigError(f"{where}.security must be 'tls', 'starttls' or 'none'")
        if cfg.mail.backend == "remote" and not server.host:
            raise ConfigError(f"mail.backend is 'remote' but {where}.host is empty")
    if cfg.mail.imap.helo_name:
        raise ConfigError("mail.imap.helo_name: the EHLO name is an SMTP setting (mail.smtp.helo_name)")
    if not 1 <= cfg.outbox.connections <= 100:
        raise ConfigError(f"outbox.connections must be between 1 and 100, not {cfg.outbox.connections}")
    if cfg.database.url_env and cfg.database.password_env:
        raise ConfigError("database: give url_env or password_env, not both")
    try:
        ZoneInfo(cfg.server.timezone)
    except (ZoneInfoNotFoundError, ValueError) as exc:
        raise ConfigError(f"server.timezone: unknown time zone {cfg.server.timezone!r}") from exc
    durations = [("games.deadline", cfg.games.deadline), ("games.grace", cfg.games.grace),
                 ("games.decision_deadline", cfg.games.decision_deadline),
                 *(("games.reminders", r) for r in cfg.games.reminders),
                 ("outbox.retry_first", cfg.outbox.retry_first), ("outbox.retry_max", cfg.outbox.retry_max),
                 ("outbox.give_up", cfg.outbox.give_up), ("outbox.probe_max", cfg.outbox.probe_max),
                 ("security.refusal_interval", cfg.security.refusal_interval),
                 ("retention.raw_mail", cfg.retention.raw_mail),
                 ("club.confirm_within", cfg.club.confirm_within)]
    for key, text in durations:
        try:
            parse_duration(text)
        except ConfigError as exc:
            raise ConfigError(f"{key}: {exc}") from None
    if cfg.security.require_dmarc and not cfg.security.trusted_authserv_id:
        raise ConfigError("security.require_dmarc needs security.trusted_authserv_id (your MTA's authserv-id)")
    if cfg.database.workers not in ("one", "shared"):
        raise ConfigError(f"database.workers is one or shared, not {cfg.database.workers!r}")
    if cfg.render.workers < 0 or cfg.render.width < 200:
        raise ConfigError("render.workers must be 0 or more, render.width at least 200")
    if "@" not in cfg.server.address:
        raise ConfigError(f"server.address must be a mail address, not {cfg.server.address!r}")
    for entry in cfg.club.signup:
        local, at, domain = entry.partition("@")
        if not at or not domain or "@" in domain or not local or (local != "*" and "*" in local):
            raise ConfigError(f"club.signup: {entry!r} is neither an address nor *@domain")


def from_mapping(data: Mapping[str, Any], source: str = "<mapping>") -> Config:
    cfg = _build(Config, data, "")
    cfg = dataclasses.replace(cfg, source=source)
    _validate(cfg)
    return cfg


def config_path(explicit: str | os.PathLike[str] | None = None) -> Path:
    if explicit:
        return Path(explicit)
    env = os.environ.get("PBEM_CONFIG")
    return Path(env) if env else DEFAULT_PATH


def _anchored(path: str, base: Path) -> str:
    return path if not path or Path(path).is_absolute() else str(base / path)


def anchor(cfg: Config, base: Path) -> Config:
    """The configuration with its relative paths taken from ``base`` (the file's folder)."""
    from sqlalchemy.engine import make_url
    from sqlalchemy.exc import ArgumentError

    database = cfg.database
    try:
        url = make_url(database.url)
    except ArgumentError as exc:
        raise ConfigError(f"database.url: {exc}") from None
    if url.get_backend_name() == "sqlite" and url.database and url.database != ":memory:":
        if not Path(url.database).is_absolute():
            database = dataclasses.replace(database, url=url.set(database=_anchored(url.database, base))
                                           .render_as_string(hide_password=False))
    mail = cfg.mail
    mail = dataclasses.replace(
        mail, embedded=dataclasses.replace(mail.embedded, maildir=_anchored(mail.embedded.maildir, base)),
        imap=dataclasses.replace(mail.imap, ca_file=_anchored(mail.imap.ca_file, base)),
        smtp=dataclasses.replace(mail.smtp, ca_file=_anchored(mail.smtp.ca_file, base)))
    security = dataclasses.replace(cfg.security, key_file=_anchored(cfg.security.key_file, base))
    return dataclasses.replace(cfg, database=database, mail=mail, security=security)


def load(path: str | os.PathLike[str] | None = None) -> Config:
    """Read the configuration, its relative paths taken from the file's folder. A missing
    file is an error naming where it was looked for."""
    target = config_path(path)
    if not target.exists():
        if path is None and not os.environ.get("PBEM_CONFIG"):
            raise ConfigError(f"no configuration file at {target.absolute()} (the default, as neither --config "
                              "nor $PBEM_CONFIG was given); pass --config PATH or set PBEM_CONFIG")
        raise ConfigError(f"configuration file not found: {target.absolute()}")
    try:
        data = tomllib.loads(target.read_text(encoding="utf-8"))
    except UnicodeDecodeError as exc:
        raise ConfigError(f"{target}: not UTF-8 text (byte {exc.start}: {exc.reason}); save it as UTF-8") from None
    except OSError as exc:
        raise ConfigError(f"{target}: cannot be read: {exc.strerror or exc}") from None
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{target}: {exc}") from exc
    try:
        return anchor(from_mapping(data, str(target)), target.absolute().parent)
    except ConfigError as exc:
        raise ConfigError(f"{target}: {exc}") from None
