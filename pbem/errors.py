"""One tree of errors for the whole package.

Player input never raises (parsers return diagnostics); these are for the
operator, the CLI and the service layer. Each class carries the command line's exit
code for it (``exit_code``, after BSD sysexits.h), so that a service manager can tell a
broken configuration (no restart helps) from a mail server that is down (try again).
"""

from __future__ import annotations

# sysexits.h: the codes the command line uses besides 0 (ok) and 1 (a check said no)
EX_USAGE = 64  # the command was used wrongly
EX_DATAERR = 65  # the input (a game, a seat, an order file, a duration) is wrong
EX_UNAVAILABLE = 69  # a mail server cannot be used
EX_TEMPFAIL = 75  # temporary: the database is busy or locked by another daemon; try again
EX_CONFIG = 78  # the configuration (or the database it names) must be fixed first


class PbemError(Exception):
    """Root of every error pbem raises on purpose."""

    exit_code = 1


class ConfigError(PbemError):
    """The configuration file is missing, malformed or has unknown keys."""

    exit_code = EX_CONFIG


class UserError(PbemError):
    """A CLI or game-master request that cannot be carried out (exit code 65)."""

    exit_code = EX_DATAERR


class UsageError(UserError):
    """The command line itself is wrong (exit code 64)."""

    exit_code = EX_USAGE


class NotFoundError(UserError):
    """A game, seat or archive that does not exist."""


class GameStateError(UserError):
    """The request does not fit the game's current state (finished, paused, ...)."""


class RulesError(PbemError):
    """A rules engine broke one of its own invariants: a bug, never player input."""


class UnknownGameError(UserError):
    """No rules engine is registered under that kind."""


class CodecError(PbemError):
    """Stored state or orders could not be decoded."""


class StorageError(PbemError):
    """The database refused or lost something, or cannot be reached (exit code 75)."""

    exit_code = EX_TEMPFAIL


class DaemonLockedError(StorageError):
    """Another daemon already serves this database."""


class NoDatabaseError(ConfigError):
    """The configuration names a database that does not exist, and this command does not
    make one (only ``serve``, ``db upgrade`` and ``game new`` do)."""


class SchemaError(ConfigError):
    """The database's schema is older (or newer) than this release: ``pbem db upgrade``."""


class MailError(PbemError):
    """A mail server could not be reached or refused a command."""

    exit_code = EX_UNAVAILABLE


class MailTransientError(MailError):
    """A temporary failure (4xx, timeout, dropped connection): try again later."""

    exit_code = EX_TEMPFAIL


class MailPermanentError(MailError):
    """A permanent failure (5xx) for a recipient: do not retry."""


class MailServerError(MailError):
    """The mail server could not be used at all (unreachable, TLS not trusted, login or
    sender refused): the server's state, never one mail's fate. ``fix`` says what an
    administrator should check."""

    exit_code = EX_UNAVAILABLE

    def __init__(self, message: str, fix: str = "") -> None:
        super().__init__(message)
        self.fix = fix


class MailServerDownError(MailServerError, MailTransientError):
    """The server does not answer (refused connection, DNS, timeout): it may come back."""


class MailSetupError(MailServerError, MailPermanentError):
    """The server answers but refuses us (certificate, login, sender): only a change of
    settings (ours or the server's) helps."""


class RenderError(PbemError):
    """An SVG could not be rasterised."""


class VerifyError(PbemError):
    """An archive does not verify; the message names the first mismatch."""


class MailMaybeDeliveredError(MailTransientError):
    """The server stopped answering after the message data was sent: the mail may have
    been delivered. Retrying is right; a duplicate (same Message-ID) is possible."""


class DrawingRefused(PbemError):
    """A map was about to be drawn where drawing is refused (`pbem.render.refuse.drawing_refused`:
    the daemon handles a mail on its event loop, and no map is drawn there): the caller does
    the work again where it may draw. Not a `RenderError`: nothing failed to draw, and code
    that falls back on a failed drawing must let it through."""
